"""Degradations: 'bicubic' and 'photo' unchanged by the 'real' pipeline's arrival; 'real' deterministic and well formed."""
import hashlib

import numpy as np
import pytest

from sr.degrade import (REAL_CLEAN_SHARE, REAL_KERNELS, add_noise, bicubic_lr, gaussian_blur, jpeg_roundtrip,
                        photo_lr, real_lr, real_params, resize_down, train_real_lr)


def image(n: int = 96, seed: int = 11) -> np.ndarray:
    r = np.random.default_rng(seed)
    yy, xx = np.mgrid[0:n, 0:n]
    base = np.stack([yy * 2.0, xx * 2.0, (yy + xx) * 1.0], -1) + r.normal(0, 20, (n, n, 3))
    return np.clip(base, 0, 255).astype(np.uint8)


def digest(a: np.ndarray) -> str:
    return hashlib.sha256(np.ascontiguousarray(a).tobytes()).hexdigest()[:16]


def test_old_degradations_are_unchanged():
    # digests taken with sr/degrade.py as it was before 'real' existed (pinned numpy / Pillow of requirements.txt)
    x = image()
    assert {s: digest(bicubic_lr(x, s)) for s in (2, 3, 4)} == {
        2: '3e58438ad22d9ee6', 3: '9c18ef57ddea1e7e', 4: 'a7f6964fa5d7cbe8'}
    photo = {s: digest(np.concatenate([photo_lr(x, s, np.random.default_rng([5, s, k])).ravel() for k in range(8)]))
             for s in (2, 3, 4)}
    assert photo == {2: 'a538965f1fdbe8c1', 3: '4cb699d52616d1e0', 4: '1e714275c507dbe7'}
    assert digest(jpeg_roundtrip(x, 75)) == '00e1aada1bd2b41c'
    assert digest(gaussian_blur(x, 0.8)) == 'dbd84e6d861276f2'


@pytest.mark.parametrize('scale', [2, 3, 4])
def test_real_is_deterministic_and_well_formed(scale):
    x = image(96)
    outs = [real_lr(x, scale, np.random.default_rng([3, k])) for k in range(12)]
    again = [real_lr(x, scale, np.random.default_rng([3, k])) for k in range(12)]
    for a, b in zip(outs, again):
        assert a.dtype == np.uint8 and a.shape == (96 // scale, 96 // scale, 3)
        assert np.array_equal(a, b)
    assert len({digest(a) for a in outs}) == len(outs)  # the draws differ
    assert (x == image(96)).all()  # the input is left alone


def test_real_params_cover_the_ranges():
    ps = [real_params(4, np.random.default_rng([9, k])) for k in range(400)]
    assert {p['kernel'] for p in ps} == set(REAL_KERNELS)
    first = [p['jpeg'][0] for p in ps]
    assert min(first) >= 30 and max(first) <= 100 and min(first) < 40 and max(first) > 90
    double = [p for p in ps if len(p['jpeg']) == 2]
    assert 0.2 < len(double) / len(ps) < 0.4 and all(30 <= p['jpeg'][1] <= 100 and p['jpeg'][1] != p['jpeg'][0]
                                                    for p in double)
    blurs = [p['blur'] for p in ps if p['blur']]
    assert 0.3 < len(blurs) / len(ps) < 0.5 and min(blurs) >= 0.2 and max(blurs) <= 1.5
    noises = [p['noise'] for p in ps if p['noise']]
    assert {n['kind'] for n in noises} == {'gaussian', 'poisson'} and {n['chroma'] for n in noises} == {True, False}
    # params given explicitly reproduce the drawn ones (distill_targets.py records them)
    x = image(64)
    p = real_params(2, np.random.default_rng(1))
    a = real_lr(x, 2, np.random.default_rng(1))
    r = np.random.default_rng(1)
    real_params(2, r)
    assert np.array_equal(a, real_lr(x, 2, r, p))


def test_kernels_downscale_flat_areas_exactly():
    flat = np.full((48, 48, 3), 77, np.uint8)
    for k in REAL_KERNELS:
        y = resize_down(flat, 3, k)
        assert y.shape == (16, 16, 3) and (y == 77).all(), k


def test_jpeg_is_420_when_asked():
    # a one-pixel chroma checkerboard (constant luma-ish): 4:4:4 at q100 keeps it, 4:2:0 averages it away
    x = np.zeros((32, 32, 3), np.uint8)
    x[..., 1] = 128
    x[::2, ::2, 0] = x[1::2, 1::2, 0] = 200
    x[::2, ::2, 2] = x[1::2, 1::2, 2] = 0
    x[1::2, ::2, 2] = x[::2, 1::2, 2] = 200
    keep = jpeg_roundtrip(x, 100, subsampling=0).astype(int)
    sub = jpeg_roundtrip(x, 100, subsampling=2).astype(int)
    checker = lambda a: np.abs(a[::2, ::2, 0] - a[1::2, ::2, 0]).mean()  # noqa: E731
    assert checker(keep) > 100 and checker(sub) < 60


def test_noise_luma_and_chroma():
    grey = np.full((64, 64, 3), 128, np.uint8)
    for kind in ('gaussian', 'poisson'):
        luma = add_noise(grey, np.random.default_rng(0), kind, 6.0, chroma=False).astype(int)
        assert (luma[..., 0] == luma[..., 1]).all() and (luma[..., 1] == luma[..., 2]).all()
        chroma = add_noise(grey, np.random.default_rng(0), kind, 6.0, chroma=True).astype(int)
        assert (chroma[..., 0] != chroma[..., 1]).mean() > 0.5
        assert 5.0 < chroma.std() < 7.0, kind  # `level` is the std at mid grey for both kinds
    # shot noise grows with the signal
    dark = add_noise(np.full((64, 64, 3), 16, np.uint8), np.random.default_rng(0), 'poisson', 6.0, True)
    assert dark.astype(float).std() < 0.5 * 6.0


def test_the_fidelity_mix_is_clean_bicubic_or_the_real_pipeline():
    x = image(96)
    clean = bicubic_lr(x, 2)
    kinds = []
    for k in range(200):
        out = train_real_lr(x, 2, np.random.default_rng([7, k]))
        r = np.random.default_rng([7, k])
        if r.random() < REAL_CLEAN_SHARE:
            assert np.array_equal(out, clean)
            kinds.append('clean')
        else:
            assert np.array_equal(out, real_lr(x, 2, r))  # the same draws after the share's one
            kinds.append('real')
    assert 0.15 < kinds.count('clean') / len(kinds) < 0.35
