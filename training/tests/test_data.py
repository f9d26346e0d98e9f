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


def test_hard_shares_zero_draw_nothing_and_keep_old_batches():
    # runs made before --screen / --border existed must see the same batches when resumed
    old = PatchSampler(['T91'], 2, 24).batch(7, 5, 8)
    off = PatchSampler(['T91'], 2, 24, screen=0.0, border=0.0).batch(7, 5, 8)
    assert np.array_equal(old[0], off[0]) and np.array_equal(old[1], off[1])


def test_hard_crops_are_deterministic_and_degraded_like_natural_ones():
    s = PatchSampler(['T91'], 2, 24, screen=0.5, border=0.5)
    a, b = s.batch(7, 5, 8), s.batch(7, 5, 8)
    assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])
    assert a[0].shape == (8, 3, 24, 24) and a[1].shape == (8, 3, 48, 48)
    for lr, hr in zip(a[0], a[1]):
        # the LR interior is MATLAB bicubic of the HR interior's surroundings: within rounding of a fresh downscale
        whole = imresize(np.ascontiguousarray(hr.transpose(1, 2, 0).astype(np.uint8)), 0.5).astype(np.float32)
        inner = (slice(2, 22), slice(2, 22))  # away from the crop edge, where the margin's content differs
        assert np.abs(whole[inner] - lr.transpose(1, 2, 0)[inner]).max() <= 1


def test_screen_content_is_flat_colour_with_hard_edges():
    from sr.synthetic import screen_hr
    rng = np.random.default_rng(3)
    crops = [screen_hr(rng, 96) for _ in range(20)]
    assert all(c.shape == (96, 96, 3) and c.dtype == np.uint8 for c in crops)
    for c in crops:
        # few colours cover most of the crop (the background alone is the largest share)
        _, counts = np.unique(c.reshape(-1, 3), axis=0, return_counts=True)
        assert np.sort(counts)[::-1][:8].sum() >= 0.8 * 96 * 96
    # and some crops have steps of at least half the range between neighbours
    assert sum(np.abs(np.diff(c.astype(int), axis=1)).max() >= 128 for c in crops) >= 10


def test_dark_border_band_starts_the_patch():
    from sr.synthetic import dark_border
    rng = np.random.default_rng(4)
    hr = np.full((60, 60, 3), 200, np.uint8)
    out = dark_border(hr, rng, edge=6)
    width = int((out[0, :, 0] < 60).sum())
    assert 7 <= width <= 14
    assert out[:, :width].max() < 60 and (out[:, width:] == 200).all()
    assert (hr == 200).all()  # the input is left alone


def test_hr_scales_add_each_image_at_each_size_antialiased_like_matlab():
    from sr.images import shrink
    one = PatchSampler(['T91'], 2, 24)
    both = PatchSampler(['T91'], 2, 24, hr_scales=(1.0, 0.5))
    need = (24 + 2 * MARGIN) * 2
    halves = [im for im in one.images if min(im.shape[:2]) >= 2 * need]  # those still big enough at half size
    assert len(both.images) == len(one.images) + len(halves)
    assert all(np.array_equal(a, b) for a, b in zip(both.images, one.images))  # the originals first, unchanged
    big = halves[0][:176, :196]
    # Pillow's antialiased bicubic equals MATLAB imresize's away from the border (which they pad differently)
    for f in (0.5, 0.25):
        ours, matlab = shrink(big, f).astype(int), imresize(big, f).astype(int)
        assert ours.shape == matlab.shape == (round(176 * f), round(196 * f), 3)
        assert np.abs(ours - matlab)[4:-4, 4:-4].max() <= 1


def test_default_hr_scales_keep_old_runs_batches():
    a = PatchSampler(['T91'], 2, 24).batch(7, 5, 8)
    b = PatchSampler(['T91'], 2, 24, hr_scales=(1.0,)).batch(7, 5, 8)
    assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])


def test_flat_crops_are_thinned_to_the_share_kept():
    from sr.data import FLAT_TRIES, detail
    plain = PatchSampler(['T91'], 2, 24)
    rng = np.random.default_rng(0)
    crops = [plain.sample(rng)[1] for _ in range(200)]
    cut = float(np.median([detail(c) for c in crops]))  # half of T91's crops are "flat" at this bar
    for keep, low, high in ((0.0, 0.0, 0.1), (1.0, 0.35, 0.65)):
        thinned = PatchSampler(['T91'], 2, 24, flat_below=cut, flat_keep=keep)
        rng = np.random.default_rng(1)
        flat = np.mean([detail(thinned.sample(rng)[1]) < cut for _ in range(200)])
        # keep 0: flat only when FLAT_TRIES draws in a row were, or when the test (on the crop with its margin) let
        # through an interior flatter than the bar; keep 1: as drawn
        assert low <= flat <= high, (keep, flat)
    assert FLAT_TRIES == 8
    a = PatchSampler(['T91'], 2, 24, flat_below=cut, flat_keep=0.3)
    assert np.array_equal(a.batch(7, 5, 8)[1], a.batch(7, 5, 8)[1])  # still a function of (seed, iteration)
