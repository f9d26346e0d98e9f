"""Image loading: every image as HxWx3 uint8 RGB (grayscale replicated, like cv2.imread does)."""
from pathlib import Path

import numpy as np
from PIL import Image

DATASETS = Path('/work/shared/datasets')
TEST_SETS = ('Set5', 'Set14', 'BSD100')
TRAIN_SETS = ('T91', 'BSD200')
# photos licensed for commercial use (data/licensed-photos.tsv), written by data/fetch_licensed.py outside the
# dataset folders: 'licensed' is its train split, 'licensed-holdout' its held-out split (measurement only)
LICENSED_SETS = {'licensed': 'train', 'licensed-holdout': 'holdout'}
LICENSED_DIR = Path.home() / '.cache' / 'upscaler' / 'datasets' / 'licensed'


def datasets_root() -> Path:
    import os
    return Path(os.environ.get('SR_DATASETS', str(DATASETS)))


def licensed_root() -> Path:
    import os
    return Path(os.environ.get('SR_LICENSED_DIR') or str(LICENSED_DIR)).expanduser()


def load_rgb(path: Path) -> np.ndarray:
    with Image.open(path) as im:
        return np.asarray(im.convert('RGB'), dtype=np.uint8).copy()


def shrink(im: np.ndarray, factor: float) -> np.ndarray:
    """`im` at `factor` (< 1) of its size, antialiased bicubic (a = -0.5, MATLAB's kernel widened like imresize's).
    Pillow's resampling, not sr/imresize.py: the training pyramid of 60 camera photos takes seconds this way, and it
    only makes HR images (the LR side of every pair stays MATLAB-exact)."""
    h, w = im.shape[:2]
    size = (max(1, round(w * factor)), max(1, round(h * factor)))
    return np.asarray(Image.fromarray(im).resize(size, Image.BICUBIC, reducing_gap=None), dtype=np.uint8).copy()


def list_set(name: str) -> list:
    if name in LICENSED_SETS:
        folder, hint = licensed_root() / LICENSED_SETS[name], ' (fetch them: python3 training/data/fetch_licensed.py)'
    else:
        root = datasets_root()
        folder, hint = (root / 'train' / name if name in TRAIN_SETS else root / name), ''
    files = sorted(folder.glob('*.png'))
    if not files:
        raise FileNotFoundError(f'no PNG images in {folder}{hint}')
    return files
