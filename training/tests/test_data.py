"""Training pairs: deterministic by (seed, iteration) and equal to whole-image MATLAB degradation."""
import numpy as np

from sr.data import MARGIN, PatchSampler
from sr.imresize import imresize


def test_batches_depend_only_on_seed_and_iteration():
    s = PatchSampler(['T91'], 2, 24)
    a = s.batch(7, 123, 4)
    b = s.batch(7, 123, 4)
    c = s.batch(7, 124, 4)
    assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])
    assert not np.array_equal(a[1], c[1])
    assert a[0].shape == (4, 3, 24, 24) and a[1].shape == (4, 3, 48, 48)


def test_lr_patch_equals_crop_of_whole_image_downscale():
    s = PatchSampler(['T91'], 4, 16)
    img = s.images[0][:200, :200]
    whole = imresize(img, 0.25)
    # an HR crop aligned to the LR grid with the sampler's margin gives the same interior
    y0, x0 = 12, 20  # LR coordinates of the crop's margin corner
    size = (16 + 2 * MARGIN) * 4
    crop = img[y0 * 4:y0 * 4 + size, x0 * 4:x0 * 4 + size]
    lr = imresize(crop, 0.25)[MARGIN:MARGIN + 16, MARGIN:MARGIN + 16]
    ref = whole[y0 + MARGIN:y0 + MARGIN + 16, x0 + MARGIN:x0 + MARGIN + 16]
    assert np.array_equal(lr, ref)
