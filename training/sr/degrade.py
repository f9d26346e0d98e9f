"""Degradations: clean MATLAB bicubic (standard protocol) and a realistic "photo" pipeline.

Photo pipeline (applied to the HR crop, order as in camera/web images): mild Gaussian blur
(sigma 0.2-1.2, p=0.5) -> MATLAB bicubic downscale -> mild Gaussian noise (sigma 0-4 on 0..255,
p=0.5) -> JPEG quality 40-95 (p=0.9). Parameters come from the issue: "JPEG quality 40-95, mild
noise and blur".
"""
import io

import numpy as np
from PIL import Image

from .imresize import imresize


def jpeg_roundtrip(img: np.ndarray, quality: int) -> np.ndarray:
    buf = io.BytesIO()
    Image.fromarray(img).save(buf, format='JPEG', quality=int(quality))
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
