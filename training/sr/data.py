"""On-the-fly training pairs: random HR crop -> flips / 90-degree rotations -> degradation.

The LR patch is made from an HR crop with a margin of MARGIN LR pixels on every side and the
margin is cut off afterwards, so the LR interior equals what MATLAB imresize gives on the whole
image (the bicubic kernel reaches 2 LR pixels; symmetric padding at the crop edge never leaks in).
Sampling is a pure function of (seed, iteration), so a resumed run sees the same batches.
"""
import numpy as np

from .degrade import bicubic_lr, photo_lr
from .images import list_set, load_rgb

MARGIN = 3


class PatchSampler:
    def __init__(self, sets, scale: int, lr_patch: int, degradation: str = 'bicubic',
                 exclude_last: int = 0):
        self.scale, self.lr_patch, self.degradation = scale, lr_patch, degradation
        self.images = []
        for name in sets:
            files = list_set(name)
            if name == 'BSD200' and exclude_last:
                files = files[:-exclude_last]  # held out for validation
            self.images += [load_rgb(f) for f in files]
        need = (lr_patch + 2 * MARGIN) * scale
        self.images = [im for im in self.images if min(im.shape[:2]) >= need]
        areas = np.array([im.shape[0] * im.shape[1] for im in self.images], dtype=np.float64)
        self.p = areas / areas.sum()  # sample images by area so every HR pixel is equally likely

    def sample(self, rng: np.random.Generator):
        s, m, p = self.scale, MARGIN, self.lr_patch
        im = self.images[rng.choice(len(self.images), p=self.p)]
        size = (p + 2 * m) * s
        y = rng.integers(0, im.shape[0] - size + 1)
        x = rng.integers(0, im.shape[1] - size + 1)
        hr = im[y:y + size, x:x + size]
        if rng.random() < 0.5:
            hr = hr[:, ::-1]
        if rng.random() < 0.5:
            hr = hr[::-1]
        hr = np.ascontiguousarray(np.rot90(hr, int(rng.integers(0, 4))))
        if self.degradation == 'photo':
            lr = photo_lr(hr, s, rng)
        else:
            lr = bicubic_lr(hr, s)
        return lr[m:m + p, m:m + p], hr[m * s:(m + p) * s, m * s:(m + p) * s]

    def batch(self, seed: int, iteration: int, size: int):
        rng = np.random.default_rng([seed, iteration])
        pairs = [self.sample(rng) for _ in range(size)]
        lr = np.stack([a for a, _ in pairs]).transpose(0, 3, 1, 2).astype(np.float32)
        hr = np.stack([b for _, b in pairs]).transpose(0, 3, 1, 2).astype(np.float32)
        return lr, hr
