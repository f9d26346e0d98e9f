"""Cuts the gallery's inputs from photos that ship inside scikit-image (bench/gallery/run.sh).

Every photo here is public domain or CC0 (scikit-image's skimage/data/_fetchers.py states each one's terms; repeated
in docs/benchmarks.md "Gallery"). One crop per kind of content the issue names (faces, text, foliage, architecture,
a JPEG-compressed phone photo), small enough that the sharp tier's x4 stays quick on two cores. Writes
<out>/inputs/<name>.png (the JPEG case: <name>.jpg, the compressed bytes) and <out>/inputs.json.
"""
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
    (out / "inputs.json").write_text(json.dumps(cases, indent=2) + "\n")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
