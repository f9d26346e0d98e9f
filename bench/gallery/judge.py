"""No-reference measures and the gallery sheets (bench/gallery/run.sh), on prepare.py's inputs and upscale.ts's outputs.

Two measures that libraries compute (none of ours):
- BRISQUE (Mittal, Moorthy, Bovik 2012), from the `brisque` package: a natural-scene-statistics model trained on
  the LIVE database's human scores; lower reads as more natural (roughly 0-100).
- blur_effect (Crete, Dolmiere, Ladret, Nicolas 2007), from scikit-image (skimage.measure.blur_effect): how much a
  further blur changes the image; 0 is sharp, 1 is as blurred as it can be.
And, where upscale.ts ran a student (`--student`), how close each output comes to the sharp tier's (Real-ESRGAN
x4plus, the student's teacher): Y-PSNR (BT.601 luma) and SSIM (scikit-image, Gaussian window as Wang et al.) against
it, for the student, bicubic and balanced (bicubic and balanced: how far an output without the look is).
Writes <out>/judged.json, the sheets <docs>/<name>.jpg (the same 64x64 input region, shown 4x, side by side:
input at nearest neighbour, bicubic, balanced, sharp, and the student if any), for a whole photo with a student also
<docs>/<name>-whole.jpg (the sharp tier's and the student's whole outputs side by side, at half size), and prints
the markdown tables for docs/benchmarks.md.
"""
import json
import sys
from pathlib import Path

import numpy as np
from brisque import BRISQUE
from PIL import Image, ImageDraw
from skimage.color import rgb2gray
from skimage.measure import blur_effect
from skimage.metrics import structural_similarity

METHODS = ["bicubic", "balanced", "sharp"]
LABELS = {
    "input": "input (nearest, x4)",
    "bicubic": "bicubic x4",
    "balanced": "balanced x4",
    "sharp": "sharp x4 (Real-ESRGAN x4plus)",
    "student": "student x4",
}
REGION = 64  # input pixels shown per sheet, each side


def measures(path: Path, brisque: BRISQUE) -> dict:
    rgb = np.asarray(Image.open(path).convert("RGB"))
    return {
        "brisque": round(float(brisque.score(rgb)), 1),
        "blur_effect": round(float(blur_effect(rgb2gray(rgb))), 3),
    }


def luma(path: Path) -> np.ndarray:
    rgb = np.asarray(Image.open(path).convert("RGB"), dtype=np.float64)
    return (16 + rgb @ np.array([65.481, 128.553, 24.966]) / 255)


def against(path: Path, reference: Path) -> dict:
    """Y-PSNR and SSIM of an output against the teacher's (whole image: no border is shaved)."""
    a, b = luma(path), luma(reference)
    mse = float(np.mean((a - b) ** 2))
    psnr = 10 * np.log10(255**2 / mse) if mse > 0 else float("inf")
    ssim = structural_similarity(a, b, data_range=255, gaussian_weights=True, sigma=1.5, use_sample_covariance=False)
    return {"psnr": round(float(psnr), 2), "ssim": round(float(ssim), 4)}


def whole(out: Path, name: str, docs: Path) -> None:
    """The sharp tier's and the student's whole outputs side by side, at half size."""
    tiles = []
    for m in ("sharp", "student"):
        img = Image.open(out / "outputs" / f"{name}-{m}.png").convert("RGB")
        tiles.append((m, img.resize((img.width // 2, img.height // 2), Image.LANCZOS)))
    side_by_side(tiles, LABELS).save(docs / f"{name}-whole.jpg", quality=85, optimize=True)


def region_tiles(out: Path, name: str, file: str, methods: list, box: tuple) -> list:
    """The input's region box = (left, top, width, height), shown 4x at nearest neighbour, then the same region of
    each method's 4x output (<out>/outputs/<name>-<method>.png): (method, image) pairs of one size."""
    left, top, w, h = box
    inp = Image.open(out / "inputs" / file).convert("RGB")
    tiles = [("input", inp.crop((left, top, left + w, top + h)).resize((w * 4, h * 4), Image.NEAREST))]
    for m in methods:
        img = Image.open(out / "outputs" / f"{name}-{m}.png").convert("RGB")
        tiles.append((m, img.crop((left * 4, top * 4, (left + w) * 4, (top + h) * 4))))
    return tiles


def side_by_side(tiles: list, labels: dict) -> Image.Image:
    """Tiles of one size in a row, each under its label (the sheets of this gallery and bench/illustration)."""
    w, h = tiles[0][1].size
    gap, label_h = 6, 18
    canvas = Image.new("RGB", (len(tiles) * w + (len(tiles) - 1) * gap, h + label_h), "white")
    draw = ImageDraw.Draw(canvas)
    for i, (m, tile) in enumerate(tiles):
        x = i * (w + gap)
        canvas.paste(tile, (x, label_h))
        draw.text((x + 2, 3), labels[m], fill="black")
    return canvas


def sheet(out: Path, name: str, file: str, docs: Path, methods: list) -> None:
    inp = Image.open(out / "inputs" / file)
    box = ((inp.width - REGION) // 2, (inp.height - REGION) // 2, REGION, REGION)
    side_by_side(region_tiles(out, name, file, methods, box), LABELS).save(docs / f"{name}.jpg", quality=90, optimize=True)


def main(out: Path, docs: Path) -> None:
    docs.mkdir(parents=True, exist_ok=True)
    cases = json.loads((out / "inputs.json").read_text())
    upscales = {(r["name"], r["method"]): r for r in json.loads((out / "upscales.json").read_text())}
    brisque = BRISQUE(url=False)
    methods = METHODS + (["student"] if any(m == "student" for _, m in upscales) else [])
    rows = []
    for c in cases:
        row = {"name": c["name"], "kind": c["kind"], "terms": c["terms"], "input": measures(out / "inputs" / c["file"], brisque)}
        for m in methods:
            row[m] = {**measures(out / "outputs" / f"{c['name']}-{m}.png", brisque), "ms": upscales[(c["name"], m)]["ms"], "network": upscales[(c["name"], m)]["network"]}
        if "student" in methods:
            teacher = out / "outputs" / f"{c['name']}-sharp.png"
            row["vs_sharp"] = {m: against(out / "outputs" / f"{c['name']}-{m}.png", teacher) for m in ("student", "bicubic", "balanced")}
        rows.append(row)
        sheet(out, c["name"], c["file"], docs, methods)
        if c.get("whole") and "student" in methods:
            whole(out, c["name"], docs)
    (out / "judged.json").write_text(json.dumps(rows, indent=2) + "\n")
    print("| image | content | BRISQUE " + " | ".join(methods) + " | blur_effect " + " | ".join(methods) + " | sharp ms |")
    print("|---|---|" + "---|" * (2 * len(methods) + 1))
    for r in rows:
        b = [f"{r[m]['brisque']:.1f}" for m in methods]
        e = [f"{r[m]['blur_effect']:.3f}" for m in methods]
        print(f"| [{r['name']}](gallery/{r['name']}.jpg) | {r['kind']} | {' | '.join(b)} | {' | '.join(e)} | {r['sharp']['ms']:,} |")
    for key, fmt in (("brisque", "{:.1f}"), ("blur_effect", "{:.3f}")):
        means = [fmt.format(np.mean([r[m][key] for r in rows])) for m in methods]
        print(f"mean {key}: " + ", ".join(f"{m} {v}" for m, v in zip(methods, means)))
    if "student" not in methods:
        return
    print()
    print("| image | student vs sharp: Y-PSNR | SSIM | bicubic vs sharp: Y-PSNR | SSIM | balanced vs sharp: Y-PSNR | SSIM | sharp ms | student ms |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        v = r["vs_sharp"]
        cells = [f"{v[m]['psnr']:.2f} | {v[m]['ssim']:.4f}" for m in ("student", "bicubic", "balanced")]
        print(f"| {r['name']} | {' | '.join(cells)} | {r['sharp']['ms']:,} | {r['student']['ms']:,} |")
    for label, pick in (("all", rows), ("held-out photos", [r for r in rows if r["name"].startswith("holdout-")])):
        if pick:
            means = {m: (np.mean([r["vs_sharp"][m]["psnr"] for r in pick]), np.mean([r["vs_sharp"][m]["ssim"] for r in pick])) for m in ("student", "bicubic", "balanced")}
            print(f"mean vs sharp ({label}, {len(pick)}): " + ", ".join(f"{m} {p:.2f} dB / {q:.4f}" for m, (p, q) in means.items()))

if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]))
