"""On-the-fly training pairs: random HR crop -> flips / 90-degree rotations -> degradation.

The LR patch is made from an HR crop with a margin of MARGIN LR pixels on every side and the
margin is cut off afterwards, so the LR interior equals what MATLAB imresize gives on the whole
image (the bicubic kernel reaches 2 LR pixels; symmetric padding at the crop edge never leaks in).
Sampling is a pure function of (seed, iteration), so a resumed run sees the same batches, and so
batches can be made ahead in other processes (`Batches`) without changing them.
Images come from the dataset folders or, the same arrays in the same order, from a packed file
(`pack=`, sr/pack.py). `hr_scales` adds downscaled copies of every image to sample from (an image pyramid): a
camera photo at full size is soft at the pixel level (lens, demosaicing, its own JPEG) and mostly flat at the scale of
a 96-pixel crop; at a half or a third of its size it has the density of detail that DIV2K-style 2K images have.
"""
from collections import deque

import numpy as np

from .degrade import bicubic_lr, photo_lr, train_real_lr
from .images import list_set, load_rgb, shrink
from .metrics import LUMA_BT601
from .synthetic import dark_border, screen_hr

MARGIN = 3
FLAT_TRIES = 8
LUMA = np.array(LUMA_BT601, dtype=np.float32) / 255


def detail(hr: np.ndarray) -> float:
    """Mean absolute difference between neighbouring pixels of an HxWx3 crop's luma (0-255 scale)."""
    y = hr.astype(np.float32) @ LUMA
    return float((np.abs(np.diff(y, axis=0)).mean() + np.abs(np.diff(y, axis=1)).mean()) / 2)


def set_images(name: str, pack=None) -> list:
    """Every image of a set as HxWx3 uint8, in sorted file-name order: from the folder or from `pack`."""
    if pack is not None:
        return pack.images(name)
    return [load_rgb(f) for f in list_set(name)]


class PatchSampler:
    def __init__(self, sets, scale: int, lr_patch: int, degradation: str = 'bicubic',
                 exclude_last: int = 0, pack=None, screen: float = 0.0, border: float = 0.0,
                 hr_scales=(1.0,), flat_below: float = 0.0, flat_keep: float = 1.0):
        self.scale, self.lr_patch, self.degradation = scale, lr_patch, degradation
        self.flat_below, self.flat_keep = flat_below, flat_keep
        # the shares of crops replaced by sr/synthetic.py's screen content and given a dark border band (0: none)
        self.screen, self.border = screen, border
        self.images = []
        for name in sets:
            images = set_images(name, pack)
            if name == 'BSD200' and exclude_last:
                images = images[:-exclude_last]  # held out for validation
            self.images += images
        # every image at each of hr_scales (1.0: as it is), in that order; (1.0,) keeps old runs' batches
        self.images = [im if f == 1.0 else shrink(im, f) for f in hr_scales for im in self.images]
        need = (lr_patch + 2 * MARGIN) * scale
        self.images = [im for im in self.images if min(im.shape[:2]) >= need]
        areas = np.array([im.shape[0] * im.shape[1] for im in self.images], dtype=np.float64)
        self.p = areas / areas.sum()  # sample images by area so every HR pixel is equally likely

    def sample(self, rng: np.random.Generator):
        s, m, p = self.scale, MARGIN, self.lr_patch
        size = (p + 2 * m) * s
        for _ in range(FLAT_TRIES if self.flat_below else 1):  # one draw when off: old runs keep their batches
            im = self.images[rng.choice(len(self.images), p=self.p)]
            y = rng.integers(0, im.shape[0] - size + 1)
            x = rng.integers(0, im.shape[1] - size + 1)
            hr = im[y:y + size, x:x + size]
            if not self.flat_below or detail(hr) >= self.flat_below or rng.random() < self.flat_keep:
                break
        if self.screen or self.border:  # no draw at all when off: old runs keep their batches
            u = rng.random()
            if u < self.screen:
                hr = screen_hr(rng, size)
            elif u < self.screen + self.border:
                hr = dark_border(hr, rng, m * s)
        if rng.random() < 0.5:
            hr = hr[:, ::-1]
        if rng.random() < 0.5:
            hr = hr[::-1]
        hr = np.ascontiguousarray(np.rot90(hr, int(rng.integers(0, 4))))
        if self.degradation == 'photo':
            lr = photo_lr(hr, s, rng)
        elif self.degradation == 'real':
            lr = train_real_lr(hr, s, rng)
        else:
            lr = bicubic_lr(hr, s)
        return lr[m:m + p, m:m + p], hr[m * s:(m + p) * s, m * s:(m + p) * s]

    def batch_uint8(self, seed: int, iteration: int, size: int):
        """(LR, HR) as uint8 N x 3 x h x w views of N x h x w x 3 memory; `batch` is this as float32."""
        rng = np.random.default_rng([seed, iteration])
        pairs = [self.sample(rng) for _ in range(size)]
        lr = np.stack([a for a, _ in pairs]).transpose(0, 3, 1, 2)
        hr = np.stack([b for _, b in pairs]).transpose(0, 3, 1, 2)
        return lr, hr

    def batch(self, seed: int, iteration: int, size: int):
        lr, hr = self.batch_uint8(seed, iteration, size)
        return lr.astype(np.float32), hr.astype(np.float32)


_worker_sampler = None


def _worker_init(sets, scale, lr_patch, degradation, exclude_last, pack_path, screen=0.0, border=0.0,
                 hr_scales=(1.0,), flat_below=0.0, flat_keep=1.0):
    global _worker_sampler
    pack = None
    if pack_path:
        from .pack import Pack
        pack = Pack(pack_path)
    _worker_sampler = PatchSampler(sets, scale, lr_patch, degradation, exclude_last, pack, screen, border, hr_scales,
                                   flat_below, flat_keep)


def _worker_batch(seed, iteration, size):
    # N x h x w x 3 (contiguous): pickling keeps the memory layout, and the parent views it as N x 3 x h x w
    return tuple(a.transpose(0, 2, 3, 1) for a in _worker_sampler.batch_uint8(seed, iteration, size))


class Batches:
    """`sampler.batch_uint8(seed, i, size)` for i = start, start + 1, ... in order, made `workers`
    processes ahead (0: in this process, when asked). The arrays are the same either way: a batch is a
    function of (seed, i). Workers are spawned (not forked: the parent holds torch's threads and maybe
    a CUDA context) and each builds its own sampler from `sampler_args` (PatchSampler's arguments,
    with the pack's path in place of the pack, and `screen`, `border`, `hr_scales`, `flat_below`, `flat_keep` last)."""

    def __init__(self, sampler, sampler_args: tuple, seed: int, size: int, start: int, workers: int = 0,
                 ahead: int = 0):
        self.sampler, self.seed, self.size, self.next = sampler, seed, size, start
        self.pool, self.pending = None, deque()
        if workers > 0:
            import multiprocessing as mp
            self.pool = mp.get_context('spawn').Pool(workers, initializer=_worker_init, initargs=sampler_args)
            self.ahead = ahead or 4 * workers
            self.queued = start

    def get(self, iteration: int):
        if iteration != self.next:
            raise ValueError(f'batches are made in order: asked for {iteration}, next is {self.next}')
        self.next += 1
        if self.pool is None:
            return self.sampler.batch_uint8(self.seed, iteration, self.size)
        while len(self.pending) < self.ahead:  # bounded: a slow consumer never piles batches up
            self.pending.append(self.pool.apply_async(_worker_batch, (self.seed, self.queued, self.size)))
            self.queued += 1
        return tuple(a.transpose(0, 3, 1, 2) for a in self.pending.popleft().get())

    def close(self):
        if self.pool is not None:
            self.pool.terminate()
            self.pool.join()
            self.pool = None
