"""The sharp tier on illustrations (bench/illustration/run.sh): x4plus against x4plus-anime by eye and by the gallery's
no-reference measures (bench/gallery/judge.py: BRISQUE, blur_effect), on measure.ts's inputs and outputs.

Writes <out>/judged.json, the sheets docs/gallery/illustration-<name>.jpg (one 64x48 input region, shown 4x, side
by side: input at nearest neighbour, bicubic, balanced, sharp = x4plus, x4plus-anime, animevideov3) and prints the
markdown table for docs/benchmarks.md.
"""
import json
import sys
from pathlib import Path

import numpy as np
from brisque import BRISQUE
from PIL import Image

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "gallery"))
from judge import measures, region_tiles, side_by_side  # noqa: E402  (the gallery's own measures and sheet layout)

METHODS = ["bicubic", "balanced", "x4plus", "x4plus-anime", "animevideov3"]
LABELS = {
    "input": "input (nearest, x4)",
    "bicubic": "bicubic x4",
    "balanced": "balanced x4",
    "x4plus": "sharp: x4plus",
    "x4plus-anime": "sharp: x4plus-anime",
    "animevideov3": "animevideov3",
}
REGION = (64, 48)  # input pixels shown per sheet (width, height)
# Top-left corner of the region per image (input pixels, the images are 192x128): where the detail is.
ORIGIN = {"text": (4, 4), "ui-light": (4, 10), "ui-dark": (96, 28), "chart": (100, 6)}


def sheet(out: Path, name: str, file: str, docs: Path) -> None:
    inp = Image.open(out / "inputs" / file)
    w, h = REGION
    left, top = ORIGIN.get(name, ((inp.width - w) // 2, (inp.height - h) // 2))
    tiles = region_tiles(out, name, file, METHODS, (left, top, w, h))
    side_by_side(tiles, LABELS).save(docs / f"illustration-{name}.jpg", quality=85, optimize=True)


def main(out: Path, docs: Path) -> None:
    docs.mkdir(parents=True, exist_ok=True)
    cases = json.loads((out / "inputs.json").read_text())
    upscales = {(r["name"], r["method"]): r for r in json.loads((out / "upscales.json").read_text())}
    brisque = BRISQUE(url=False)
    rows = []
    for c in cases:
        row = {"name": c["name"], "kind": c["kind"]}
        for m in METHODS:
            u = upscales[(c["name"], m)]
            row[m] = {**measures(out / "outputs" / f"{c['name']}-{m}.png", brisque), "ms": u["ms"], "network": u["network"]}
        rows.append(row)
        sheet(out, c["name"], c["file"], docs)
    (out / "judged.json").write_text(json.dumps(rows, indent=2) + "\n")
    print("| image | content | BRISQUE " + " | ".join(METHODS) + " | blur_effect " + " | ".join(METHODS) + " |")
    print("|---|---|" + "---|" * (2 * len(METHODS)))
    for r in rows:
        b = [f"{r[m]['brisque']:.1f}" for m in METHODS]
        e = [f"{r[m]['blur_effect']:.3f}" for m in METHODS]
        print(f"| [{r['name']}](gallery/illustration-{r['name']}.jpg) | {r['kind']} | {' | '.join(b)} | {' | '.join(e)} |")
    b = [f"{np.mean([r[m]['brisque'] for r in rows]):.1f}" for m in METHODS]
    e = [f"{np.mean([r[m]['blur_effect'] for r in rows]):.3f}" for m in METHODS]
    print(f"| mean | | {' | '.join(b)} | {' | '.join(e)} |")
    for m in ("x4plus", "x4plus-anime", "animevideov3"):
        ms = [r[m]["ms"] for r in rows]
        print(f"{m}: {min(ms):,}-{max(ms):,} ms per image ({rows[0][m]['network']})")


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]))
