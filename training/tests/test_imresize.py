"""MATLAB bicubic imresize: kernel properties and the published bicubic baseline on Set5."""
import numpy as np
import pytest

from sr.commands.evaluate import bicubic_upscaler, evaluate
from sr.imresize import imresize, resize_matrix


def test_rows_are_normalised_and_mirror_symmetric():
    m = resize_matrix(50, 25, 0.5)
    assert np.allclose(m.sum(axis=1), 1.0)
    assert np.allclose(m, m[::-1, ::-1])


def test_interior_weights_of_half_scale_are_matlabs():
    # MATLAB, scale 0.5 antialiased: 8 taps 0.5*cubic(0.5*t), HR distances t = +-0.5, +-1.5, +-2.5, +-3.5
    row = resize_matrix(40, 20, 0.5)[10]
    taps = row[row != 0]
    d = np.array([3.5, 2.5, 1.5, 0.5, 0.5, 1.5, 2.5, 3.5]) * 0.5
    k = np.where(d <= 1, 1.5 * d**3 - 2.5 * d**2 + 1, -0.5 * d**3 + 2.5 * d**2 - 4 * d + 2) * 0.5
    assert np.allclose(taps, k / k.sum())
    assert np.flatnonzero(row).tolist() == list(range(17, 25))


def test_uint8_in_uint8_out_and_size():
    img = (np.arange(7 * 9 * 3) % 256).astype(np.uint8).reshape(7, 9, 3)
    out = imresize(img, 2.0)
    assert out.dtype == np.uint8 and out.shape == (14, 18, 3)
    assert imresize(np.full((8, 8, 3), 77, np.uint8), 0.5).tolist() == np.full((4, 4, 3), 77).tolist()


@pytest.mark.parametrize('scale,published', [(2, 33.66), (4, 28.42)])
def test_set5_bicubic_row_matches_published(scale, published):
    # Published MATLAB numbers (VDSR/EDSR tables): LR and bicubic upscale by imresize, uint8 Y.
    res = evaluate(bicubic_upscaler(scale), scale, sets=['Set5'], with_ssim=False)
    assert abs(res['Set5']['psnr'] - published) < 0.02
