"""Cuts the gallery's inputs (bench/gallery/run.sh).

Two kinds of input:
- Crops of photos that ship inside scikit-image, public domain or CC0 (skimage/data/_fetchers.py states each one's
  terms; repeated in docs/benchmarks.md "Gallery"): one per kind of content (faces, text, foliage, architecture, a
  JPEG-compressed phone photo), small enough that Real-ESRGAN x4plus stays quick on two cores. Some of these photos
  are in the licensed training set (training/data/licensed-photos.tsv, split train), so the sharp tier's student
  has seen other crops of them.
- Whole photos of the licensed set's holdout split (never trained on; training/data/fetch_licensed.py puts them in
  ~/.cache/upscaler/datasets/licensed/holdout, or SR_LICENSED_DIR), resized to HOLDOUT_SIDE pixels on the long side
  with Lanczos (at most 100,000 pixels: the teacher's bound), one of them also saved as a quality-75 JPEG: where the student is judged against its teacher.
Writes <out>/inputs/<name>.png (a JPEG case: <name>.jpg, the compressed bytes) and <out>/inputs.json.
"""
import os
import importlib.util
import json
import sys
from pathlib import Path

import numpy as np
from PIL import Image
from skimage import data

# name, loader, crop box (left, top, width, height) on the original, content kind, terms, JPEG quality or None
CASES = [
    ("face", data.astronaut, (150, 30, 128, 128), "faces", "public domain (NASA)", None),
    ("text", data.text, (0, 0, 224, 112), "text (handwriting on paper)", "public domain", None),
    ("foliage", data.grass, (100, 100, 128, 128), "foliage", "CC0 (CC0Textures)", None),
    ("architecture", data.brick, (60, 60, 128, 128), "architecture (a brick wall)", "CC0 (CC0Textures)", None),
    ("launch-tower", data.rocket, (270, 110, 144, 144), "structure against the sky (a launch tower)", "public domain (SpaceX)", None),
    ("phone-jpeg", data.coffee, (330, 170, 144, 128), "a JPEG-compressed phone photo (quality 50)", "CC0 (Rachel Michetti)", 50),
]


HOLDOUT_SIDE = 320
TEACHER_MAX_PIXELS = 100_000  # Real-ESRGAN x4plus's bound in the engine's registry (maxInputPixels)
LICENSED = Path(os.environ.get("SR_LICENSED_DIR", Path.home() / ".cache" / "upscaler" / "datasets" / "licensed"))
FETCH = Path(__file__).resolve().parents[2] / "training" / "data" / "fetch_licensed.py"  # the manifest's reader
HOLDOUT_JPEG = {"lomiri1604-picosdeeuropa": 75}


def holdout_terms() -> dict:
    """name -> "licence (author)" for the manifest's holdout rows."""
    spec = importlib.util.spec_from_file_location("fetch_licensed", FETCH)
    fetch = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(fetch)
    return {r["id"]: f"{r['licence']} ({r['author']})" for r in fetch.read_manifest() if r["split"] == "holdout"}


def holdout_cases(out: Path) -> list:
    cases = []
    terms = holdout_terms()
    for name in sorted(terms):
        img = Image.open(LICENSED / "holdout" / f"{name}.png").convert("RGB")
        k = min(HOLDOUT_SIDE / max(img.size), (TEACHER_MAX_PIXELS / (img.width * img.height)) ** 0.5)
        small = img.resize((round(img.width * k), round(img.height * k)), Image.LANCZOS)
        for jpeg in (None, HOLDOUT_JPEG.get(name)) if name in HOLDOUT_JPEG else (None,):
            case = f"holdout-{name}" + (f"-q{jpeg}" if jpeg else "")
            file = f"{case}.jpg" if jpeg else f"{case}.png"
            small.save(out / "inputs" / file, **({"format": "JPEG", "quality": jpeg} if jpeg else {}))
            kind = "a whole held-out photo" + (f", saved as JPEG quality {jpeg}" if jpeg else "")
            cases.append({"name": case, "file": file, "source": name, "crop": None, "kind": kind, "terms": terms[name], "jpeg": jpeg, "whole": True})
    return cases


def main(out: Path) -> None:
    (out / "inputs").mkdir(parents=True, exist_ok=True)
    cases = []
    for name, load, (x, y, w, h), kind, terms, jpeg in CASES:
        img = load()
        if img.ndim == 2:
            img = np.stack([img] * 3, axis=-1)
        crop = Image.fromarray(np.ascontiguousarray(img[y : y + h, x : x + w, :3]))
        if jpeg is None:
            file = f"{name}.png"
            crop.save(out / "inputs" / file)
        else:
            # the JPEG bytes themselves: the service sees a JPEG upload, as from a phone, and picks its JPEG network
            file = f"{name}.jpg"
            crop.save(out / "inputs" / file, format="JPEG", quality=jpeg)
        cases.append({"name": name, "file": file, "source": load.__name__, "crop": [x, y, w, h], "kind": kind, "terms": terms, "jpeg": jpeg})
    cases += holdout_cases(out)
    (out / "inputs.json").write_text(json.dumps(cases, indent=2) + "\n")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
