"""Y-channel PSNR / SSIM as in the SR literature (MATLAB rgb2ycbcr uint8 luma, shave = scale).

PSNR/SSIM are computed on the BT.601 luma of 8-bit images, with `shave` pixels removed on every
side, SSIM with an 11x11 Gaussian (sigma 1.5) like Wang et al.'s ssim.m.
"""
import numpy as np

LUMA_BT601 = (65.481, 128.553, 24.966)  # MATLAB rgb2ycbcr's R, G, B weights of Y (per 255)


def rgb_to_y(img: np.ndarray) -> np.ndarray:
    """MATLAB rgb2ycbcr luma of a uint8 image: 16..235, rounded as MATLAB returns uint8 (like the
    engine's quality harness, libs/engine/src/quality/metrics.ts, so both report the same dB)."""
    x = img.astype(np.float64)
    if x.ndim == 2:
        x = np.stack([x, x, x], axis=-1)
    r, g, b = LUMA_BT601
    return np.floor(16.0 + (r * x[..., 0] + g * x[..., 1] + b * x[..., 2]) / 255.0 + 0.5)


def _shave(a: np.ndarray, s: int) -> np.ndarray:
    return a[s:-s, s:-s] if s > 0 else a


def psnr_y(sr: np.ndarray, hr: np.ndarray, shave: int) -> float:
    a = _shave(rgb_to_y(sr), shave)
    b = _shave(rgb_to_y(hr), shave)
    mse = np.mean((a - b) ** 2)
    return float('inf') if mse == 0 else float(10 * np.log10(255.0 ** 2 / mse))


def _gauss_window(size: int = 11, sigma: float = 1.5) -> np.ndarray:
    ax = np.arange(size) - (size - 1) / 2
    g = np.exp(-(ax ** 2) / (2 * sigma ** 2))
    g = np.outer(g, g)
    return g / g.sum()


def _filter_valid(x: np.ndarray, win: np.ndarray) -> np.ndarray:
    """'valid' 2-D correlation with a separable (outer-product) window, as filter2(..., 'valid')."""
    g = np.sqrt(np.diag(win))  # win = outer(g, g) with g normalised
    g = g / g.sum()
    k = g.size
    rows = sum(g[i] * x[i:x.shape[0] - k + 1 + i] for i in range(k))
    return sum(g[j] * rows[:, j:x.shape[1] - k + 1 + j] for j in range(k))


def ssim_y(sr: np.ndarray, hr: np.ndarray, shave: int) -> float:
    a = _shave(rgb_to_y(sr), shave)
    b = _shave(rgb_to_y(hr), shave)
    c1, c2 = (0.01 * 255) ** 2, (0.03 * 255) ** 2
    win = _gauss_window()
    mu1, mu2 = _filter_valid(a, win), _filter_valid(b, win)
    s11 = _filter_valid(a * a, win) - mu1 ** 2
    s22 = _filter_valid(b * b, win) - mu2 ** 2
    s12 = _filter_valid(a * b, win) - mu1 * mu2
    m = ((2 * mu1 * mu2 + c1) * (2 * s12 + c2)) / ((mu1 ** 2 + mu2 ** 2 + c1) * (s11 + s22 + c2))
    return float(m.mean())
