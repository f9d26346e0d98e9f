"""No-reference measures and the gallery sheets (bench/gallery/run.sh), on prepare.py's inputs and upscale.ts's outputs.

Two measures that libraries compute (none of ours):
- BRISQUE (Mittal, Moorthy, Bovik 2012), from the `brisque` package: a natural-scene-statistics model trained on
  the LIVE database's human scores; lower reads as more natural (roughly 0-100).
- blur_effect (Crete, Dolmiere, Ladret, Nicolas 2007), from scikit-image (skimage.measure.blur_effect): how much a
  further blur changes the image; 0 is sharp, 1 is as blurred as it can be.
Writes <out>/judged.json, the sheets docs/gallery/<name>.jpg (the same 64x64 input region, shown 4x, side by side:
input at nearest neighbour, bicubic, balanced, sharp) and prints the markdown table for docs/benchmarks.md.
"""
import json
import sys
from pathlib import Path

import numpy as np
from brisque import BRISQUE
from PIL import Image, ImageDraw
from skimage.color import rgb2gray
from skimage.measure import blur_effect

METHODS = ["bicubic", "balanced", "sharp"]
LABELS = {"input": "input (nearest, x4)", "bicubic": "bicubic x4", "balanced": "balanced x4", "sharp": "sharp x4"}
REGION = 64  # input pixels shown per sheet, each side


def measures(path: Path, brisque: BRISQUE) -> dict:
    rgb = np.asarray(Image.open(path).convert("RGB"))
    return {
        "brisque": round(float(brisque.score(rgb)), 1),
        "blur_effect": round(float(blur_effect(rgb2gray(rgb))), 3),
    }


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


def sheet(out: Path, name: str, file: str, docs: Path) -> None:
    inp = Image.open(out / "inputs" / file)
    box = ((inp.width - REGION) // 2, (inp.height - REGION) // 2, REGION, REGION)
    side_by_side(region_tiles(out, name, file, METHODS, box), LABELS).save(docs / f"{name}.jpg", quality=90, optimize=True)


def main(out: Path, docs: Path) -> None:
    docs.mkdir(parents=True, exist_ok=True)
    cases = json.loads((out / "inputs.json").read_text())
    upscales = {(r["name"], r["method"]): r for r in json.loads((out / "upscales.json").read_text())}
    brisque = BRISQUE(url=False)
    rows = []
    for c in cases:
        row = {"name": c["name"], "kind": c["kind"], "terms": c["terms"], "input": measures(out / "inputs" / c["file"], brisque)}
        for m in METHODS:
            row[m] = {**measures(out / "outputs" / f"{c['name']}-{m}.png", brisque), "ms": upscales[(c["name"], m)]["ms"], "network": upscales[(c["name"], m)]["network"]}
        rows.append(row)
        sheet(out, c["name"], c["file"], docs)
    (out / "judged.json").write_text(json.dumps(rows, indent=2) + "\n")
    print("| image | content | BRISQUE bicubic | balanced | sharp | blur_effect bicubic | balanced | sharp | sharp ms |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        b = [f"{r[m]['brisque']:.1f}" for m in METHODS]
        e = [f"{r[m]['blur_effect']:.3f}" for m in METHODS]
        print(f"| [{r['name']}](gallery/{r['name']}.jpg) | {r['kind']} | {' | '.join(b)} | {' | '.join(e)} | {r['sharp']['ms']:,} |")
    for key, fmt in (("brisque", "{:.1f}"), ("blur_effect", "{:.3f}")):
        means = [fmt.format(np.mean([r[m][key] for r in rows])) for m in METHODS]
        print(f"mean {key}: " + ", ".join(f"{m} {v}" for m, v in zip(METHODS, means)))


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]))
