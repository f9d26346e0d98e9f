"""Hard content the natural training sets rarely hold, for quantization-aware fine-tuning (train_qat.py --screen,
--border).

results/int8.md (2026-11-27) found most of the int8 loss on Set14 in two images the T91/BSD200 patches do not
resemble: ppt3, a slide screenshot (flat colour, thin text strokes, hard edges: activations beyond the clips the
natural patches calibrated), and foreman, whose 2-pixel black border at the image edge is where the fine-tuned
float function drifted from its parent. These functions make HR crops of both kinds; the sampler degrades them
exactly as it degrades natural crops. They are drawn from the sampler's own generator, so batches stay a pure
function of (seed, iteration), and they use no test image: only random shapes and colours.
"""
import numpy as np


def _colour(rng: np.random.Generator, saturated: bool) -> np.ndarray:
    if saturated:
        c = np.zeros(3)
        c[rng.permutation(3)[: int(rng.integers(1, 3))]] = 255
        return np.clip(c * rng.uniform(0.6, 1.0), 0, 255)
    return np.full(3, rng.uniform(0, 255)) + rng.uniform(-20, 20, size=3)


def screen_hr(rng: np.random.Generator, size: int) -> np.ndarray:
    """A size x size x 3 uint8 crop of 'screen content': a flat background, flat boxes and rules, and lines of
    glyph-like strokes 1-3 px wide (dark on light, light on dark, or saturated), half of them anti-aliased by
    drawing at twice the size and averaging 2x2 blocks."""
    aa = rng.random() < 0.5
    n = size * 2 if aa else size
    k = 2 if aa else 1
    bg = _colour(rng, rng.random() < 0.3)
    im = np.empty((n, n, 3))
    im[:] = bg
    for _ in range(int(rng.integers(0, 4))):  # panels and rules
        y0, x0 = rng.integers(0, n, size=2)
        h, w = rng.integers(k, n // 2, size=2)
        if rng.random() < 0.4:  # a rule: one short side
            h, w = (int(rng.integers(1, 3)) * k, w) if rng.random() < 0.5 else (h, int(rng.integers(1, 3)) * k)
        im[y0:y0 + h, x0:x0 + w] = _colour(rng, rng.random() < 0.5)
    for _ in range(int(rng.integers(1, 6))):  # lines of text
        fg = np.clip(255 - bg + rng.uniform(-40, 40, size=3), 0, 255) if rng.random() < 0.7 else _colour(rng, True)
        gh = int(rng.integers(6, 28)) * k  # glyph height
        gw = max(3 * k, int(gh * rng.uniform(0.5, 0.8)))
        stroke = int(rng.integers(1, 3)) * k
        y = int(rng.integers(-gh // 2, n - gh // 2))
        x = int(rng.integers(-gw, gw))
        while x < n:
            if rng.random() < 0.15:  # a space
                x += gw
                continue
            for _ in range(int(rng.integers(2, 5))):  # strokes of one glyph: bars and stems
                if rng.random() < 0.5:
                    sy = y + int(rng.integers(0, gh - stroke + 1))
                    sx, ex = sorted(x + rng.integers(0, gw + 1, size=2))
                    im[max(sy, 0):max(sy + stroke, 0), max(sx, 0):max(ex + stroke, 0)] = fg
                else:
                    sx = x + int(rng.integers(0, gw - stroke + 1))
                    sy, ey = sorted(y + rng.integers(0, gh + 1, size=2))
                    im[max(sy, 0):max(ey + stroke, 0), max(sx, 0):max(sx + stroke, 0)] = fg
            x += gw + int(rng.integers(1, 3)) * k
    if aa:
        im = im.reshape(size, 2, size, 2, 3).mean(axis=(1, 3))
    return np.clip(np.round(im), 0, 255).astype(np.uint8)


def dark_border(hr: np.ndarray, rng: np.random.Generator, edge: int) -> np.ndarray:
    """`hr` with a near-black band along its left side: everything left of column `edge` (the part the sampler cuts
    off after degrading, standing in for the symmetric padding beyond an image's edge) and 1-8 columns after it,
    so that the patch the network sees starts with a dark band at its zero-padded edge, as foreman's frame does."""
    out = hr.copy()
    width = edge + int(rng.integers(1, 9))
    level = rng.uniform(0, 30)
    out[:, :width] = np.clip(np.round(level + rng.normal(0, 2, size=(hr.shape[0], width, 3))), 0, 255).astype(np.uint8)
    return out
