"""Pack the training and quick-check images into one file for machines without the dataset folders.

  python -m sr pack-data                        # -> packs/sr_data.npz (+ .sha256), ~2 min, ~45 MB
  python -m sr pack-data --check                # decode the pack and compare every image with the folders
  python -m sr train --data packs/sr_data.npz ...   # same batches as from the folders (sr/pack.py)

Default sets: T91 and BSD200 (training; BSD200's last train.HOLDOUT images by name are the held-out
checkpoint-selection images, excluded from training by the reader exactly as from the folders) and Set5
(train.py's quick check). Every image of each set is packed, in `list_set` order, so the held-out
split is reproduced by the same slicing. packs/ is git-ignored: the file is made here on demand and
carried to the GPU machine (training/scripts/gpu_train.sh, README).
"""
import argparse
import sys
import time
from pathlib import Path

from sr.images import list_set, load_rgb
from sr.pack import DEFAULT_PRESET, Pack, file_sha256, write_pack
from sr.paths import TRAINING

DEFAULT_SETS = 'T91,BSD200,Set5'
DEFAULT_PATH = TRAINING / 'packs' / 'sr_data.npz'
CARRY_LIMIT = 64 * 2 ** 20  # what the device tool carries besides tracked files


def read_sets(names) -> dict:
    return {s: [(f.name, load_rgb(f)) for f in list_set(s)] for s in names}


def check(path: Path, names) -> None:
    """Every image of the pack equals the folder's, in the same order; the sidecar hash matches."""
    import numpy as np
    pack = Pack(path)
    for s in names:
        files = list_set(s)
        if pack.names(s) != [f.name for f in files]:
            sys.exit(f'{path}: {s} names differ from the folder')
        for f, img in zip(files, pack.images(s)):
            if not np.array_equal(img, load_rgb(f)):
                sys.exit(f'{path}: {s}/{f.name} differs from the folder')
    side = Path(str(path) + '.sha256')
    if side.exists() and side.read_text().split()[0] != file_sha256(path):
        sys.exit(f'{side} does not match {path}')
    print(f'{path}: {", ".join(f"{s} {len(pack.names(s))}" for s in names)} images equal the folders; '
          f'content {pack.content_sha256}')


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--sets', default=DEFAULT_SETS)
    ap.add_argument('--out', default=str(DEFAULT_PATH))
    ap.add_argument('--preset', type=int, default=DEFAULT_PRESET, help='xz preset 0-9 (0: fast, ~15%% larger)')
    ap.add_argument('--check', action='store_true', help='check an existing pack against the folders instead')
    a = ap.parse_args()
    names, path = a.sets.split(','), Path(a.out)
    if a.check:
        check(path, names)
        return
    t0 = time.time()
    manifest = write_pack(path, read_sets(names), preset=a.preset, log=lambda m: print(m, flush=True))
    size = path.stat().st_size
    print(f'{path}: {size} bytes ({size / 2 ** 20:.1f} MiB, {time.time() - t0:.0f} s)\n'
          f'content sha256 {manifest["content_sha256"]}\nfile sha256    {file_sha256(path)}')
    if size > CARRY_LIMIT:
        sys.exit(f'{path} is over the {CARRY_LIMIT >> 20} MiB the device tool carries')


if __name__ == '__main__':
    main()
