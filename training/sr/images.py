"""Image loading: every image as HxWx3 uint8 RGB (grayscale replicated, like cv2.imread does)."""
from pathlib import Path

import numpy as np
from PIL import Image

DATASETS = Path('/work/shared/datasets')
TEST_SETS = ('Set5', 'Set14', 'BSD100')
TRAIN_SETS = ('T91', 'BSD200')


def datasets_root() -> Path:
    import os
    return Path(os.environ.get('SR_DATASETS', str(DATASETS)))


def load_rgb(path: Path) -> np.ndarray:
    with Image.open(path) as im:
        return np.asarray(im.convert('RGB'), dtype=np.uint8).copy()


def list_set(name: str) -> list:
    root = datasets_root()
    folder = root / 'train' / name if name in TRAIN_SETS else root / name
    files = sorted(folder.glob('*.png'))
    if not files:
        raise FileNotFoundError(f'no PNG images in {folder}')
    return files
