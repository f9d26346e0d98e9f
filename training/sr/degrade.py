"""Degradations: clean MATLAB bicubic (standard protocol), a realistic "photo" pipeline and a wider "real" one.

Photo pipeline (applied to the HR crop, order as in camera/web images): mild Gaussian blur
(sigma 0.2-1.2, p=0.5) -> MATLAB bicubic downscale -> mild Gaussian noise (sigma 0-4 on 0..255,
p=0.5) -> JPEG quality 40-95 (p=0.9). Parameters come from the issue: "JPEG quality 40-95, mild
noise and blur".
Real pipeline (`real_lr`, what distill_targets.py feeds the sharp tier's teacher): below.
"""
import io

import numpy as np
from PIL import Image

from .imresize import imresize


def jpeg_roundtrip(img: np.ndarray, quality: int, subsampling: int = None) -> np.ndarray:
    """Encode and decode as JPEG; `subsampling` as PIL's (2: 4:2:0), None: PIL's default (what 'photo' used)."""
    buf = io.BytesIO()
    kw = {} if subsampling is None else {'subsampling': subsampling}
    Image.fromarray(img).save(buf, format='JPEG', quality=int(quality), **kw)
    buf.seek(0)
    with Image.open(buf) as im:
        return np.asarray(im.convert('RGB'), dtype=np.uint8).copy()


def gaussian_blur(img: np.ndarray, sigma: float) -> np.ndarray:
    r = max(1, int(np.ceil(3 * sigma)))
    ax = np.arange(-r, r + 1)
    k = np.exp(-(ax ** 2) / (2 * sigma ** 2))
    k /= k.sum()
    x = img.astype(np.float64)
    pad = np.pad(x, ((r, r), (r, r), (0, 0)), mode='symmetric')
    x = sum(k[i] * pad[i:i + x.shape[0], r:r + x.shape[1]] for i in range(2 * r + 1))
    pad = np.pad(x, ((0, 0), (r, r), (0, 0)), mode='symmetric')
    x = sum(k[i] * pad[:, i:i + img.shape[1]] for i in range(2 * r + 1))
    return np.clip(np.round(x), 0, 255).astype(np.uint8)


def bicubic_lr(hr: np.ndarray, scale: int) -> np.ndarray:
    return imresize(hr, 1.0 / scale)


def photo_lr(hr: np.ndarray, scale: int, rng: np.random.Generator) -> np.ndarray:
    x = hr
    if rng.random() < 0.5:
        x = gaussian_blur(x, rng.uniform(0.2, 1.2))
    x = imresize(x, 1.0 / scale)
    if rng.random() < 0.5:
        noise = rng.normal(0.0, rng.uniform(0.0, 4.0), size=x.shape)
        x = np.clip(np.round(x.astype(np.float64) + noise), 0, 255).astype(np.uint8)
    if rng.random() < 0.9:
        x = jpeg_roundtrip(x, int(rng.integers(40, 96)))
    return x


# --- 'real': a wider pipeline for real photos (distillation of the sharp tier, distill_targets.py) ---------------
# Order as in a camera / web image: optional Gaussian blur on the HR crop -> downscale by `scale` with a kernel
# drawn from REAL_KERNELS -> optional sensor noise (Gaussian or Poisson-like, luma-only or per colour channel ->
# chroma noise) -> JPEG (quality 30-100, 4:2:0) -> sometimes a second JPEG at another quality (re-saved images).
# Every random number comes from `rng` in a fixed order, so the result is a function of (hr, scale, rng state).
REAL_KERNELS = ('bicubic', 'bilinear', 'area', 'lanczos')
_PIL_KERNELS = {'bilinear': Image.BILINEAR, 'area': Image.BOX, 'lanczos': Image.LANCZOS}


def resize_down(img: np.ndarray, scale: int, kernel: str) -> np.ndarray:
    """`img` (H, W multiples of `scale`) made `scale` times smaller: MATLAB bicubic, or PIL's antialiased filters."""
    h, w = img.shape[0] // scale, img.shape[1] // scale
    if kernel == 'bicubic':
        return imresize(img, 1.0 / scale)
    return np.asarray(Image.fromarray(img).resize((w, h), _PIL_KERNELS[kernel]), dtype=np.uint8).copy()


def add_noise(img: np.ndarray, rng: np.random.Generator, kind: str, level: float, chroma: bool) -> np.ndarray:
    """Sensor-like noise on 0..255: 'gaussian' (std `level`) or 'poisson' (shot noise: std sqrt(level^2 * x / 128),
    i.e. `level` at mid grey); `chroma`: drawn per colour channel, else one draw shared by R, G, B (luma noise)."""
    x = img.astype(np.float64)
    shape = x.shape if chroma else x.shape[:2] + (1,)
    if kind == 'gaussian':
        n = rng.normal(0.0, level, size=shape)
    else:
        gain = level ** 2 / 128.0  # photons per grey level: 1 / gain
        base = x if chroma else x.mean(axis=2, keepdims=True)
        n = rng.poisson(np.maximum(base, 0) / gain) * gain - base
    return np.clip(np.round(x + n), 0, 255).astype(np.uint8)


def real_params(scale: int, rng: np.random.Generator) -> dict:
    """The random choices of real_lr(), drawn in a fixed order (recorded by distill_targets.py)."""
    p = {'blur': None, 'kernel': REAL_KERNELS[int(rng.integers(0, len(REAL_KERNELS)))], 'noise': None,
         'jpeg': [int(rng.integers(30, 101))]}
    if rng.random() < 0.4:
        p['blur'] = round(float(rng.uniform(0.2, 0.3 * scale + 0.3)), 3)  # sigma in HR pixels
    if rng.random() < 0.5:
        kind = 'gaussian' if rng.random() < 0.6 else 'poisson'
        p['noise'] = {'kind': kind, 'level': round(float(rng.uniform(1.0, 8.0)), 3), 'chroma': bool(rng.random() < 0.4)}
    if rng.random() < 0.3:  # re-compressed: a second save at another quality
        q2 = int(rng.integers(30, 100))
        p['jpeg'].append(q2 + 1 if q2 >= p['jpeg'][0] else q2)  # never the first quality again
    return p


def real_lr(hr: np.ndarray, scale: int, rng: np.random.Generator, params: dict = None) -> np.ndarray:
    """Degraded LR of an HR crop (H, W multiples of `scale`): blur, kernel, noise, JPEG 4:2:0 (once or twice)."""
    p = real_params(scale, rng) if params is None else params
    x = hr
    if p['blur']:
        x = gaussian_blur(x, p['blur'])
    x = resize_down(x, scale, p['kernel'])
    if p['noise']:
        x = add_noise(x, rng, **p['noise'])
    for q in p['jpeg']:
        x = jpeg_roundtrip(x, q, subsampling=2)
    return x


# --- 'real' as a training degradation of the fidelity tiers (train.py --degradation real) ---------------------------
# The fidelity tiers serve clean and compressed photos with one network each (no switch on an estimated JPEG
# quality), so their pairs mix both: REAL_CLEAN_SHARE of the crops are clean MATLAB bicubic (the standard protocol,
# what Set5 measures), the rest go through real_lr (blur, kernel, noise, JPEG 30-100 4:2:0, sometimes twice).
REAL_CLEAN_SHARE = 0.25


def train_real_lr(hr: np.ndarray, scale: int, rng: np.random.Generator) -> np.ndarray:
    """A training LR of the fidelity tiers' 'real' mix: clean bicubic with REAL_CLEAN_SHARE, else real_lr."""
    if rng.random() < REAL_CLEAN_SHARE:
        return bicubic_lr(hr, scale)
    return real_lr(hr, scale, rng)
