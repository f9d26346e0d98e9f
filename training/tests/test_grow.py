"""Growing a trained network keeps its output exactly (to float rounding) and leaves it trainable."""
import pytest
import torch

from sr.grow import grow
from sr.models import build


def trained_looking(arch, scale, seed):
    torch.manual_seed(seed)
    m = build(arch, scale)
    with torch.no_grad():
        for p in m.parameters():
            p.add_(torch.randn_like(p) * 0.05)
    return m


def test_grown_network_computes_the_same_function():
    # c32_b4 -> c48_b6 made ours-balanced-x3; c48_b6 -> c64_b8 ours-balanced-x2 and -x4; c64_b8 -> c64_b10
    # (depth only) is the x2 run after them, c64_b8 -> c64_b12 the x4 one; the GPU plan (plans/balanced_grow1.txt)
    # grew c48_b6 -> c64_b8 (today's ours-balanced-x3), c64_b12 -> c96_b14 and c64_b14 -> c96_b16
    for scale, small_arch, big_arch in ((2, 'plain_c32_b4', 'plain_c48_b6'), (4, 'plain_c32_b4', 'plain_c48_b6'),
                                        (3, 'plain_c32_b4', 'plain_c48_b6'), (2, 'plain_c48_b6', 'plain_c64_b8'),
                                        (4, 'plain_c48_b6', 'plain_c64_b8'), (2, 'plain_c64_b8', 'plain_c64_b10'),
                                        (4, 'plain_c64_b8', 'plain_c64_b12'), (3, 'plain_c48_b6', 'plain_c64_b8'),
                                        (2, 'plain_c64_b12', 'plain_c96_b14'), (4, 'plain_c64_b14', 'plain_c96_b16')):
        small = trained_looking(small_arch, scale, 5)
        big = grow(small, build(big_arch, scale))
        x = torch.rand(2, 3, 20, 17) * 255
        with torch.no_grad():
            diff = (small(x) - big(x)).abs().max().item()
        assert diff < 1e-3, diff


def test_new_channels_receive_gradient():
    big = grow(trained_looking('plain_c32_b4', 2, 6), build('plain_c48_b6', 2))
    x = torch.rand(1, 3, 16, 16) * 255
    loss = (big(x) - 128).abs().mean()
    loss.backward()
    assert big.tail.k3.weight.grad[:, 32:].abs().sum().item() > 0
    assert big.features[6].k3.weight.grad.abs().sum().item() > 0


def test_shrinking_is_refused():
    try:
        grow(build('plain_c48_b6', 2), build('plain_c32_b4', 2))
    except ValueError:
        return
    raise AssertionError('expected ValueError')


def test_any_plain_arch_name_builds():
    net = build('plain_c96_b14', 2)
    assert (net.channels, net.body, net.scale, net.receptive_radius) == (96, 14, 2, 16)
    with pytest.raises(ValueError, match='plain_c<channels>_b<body>'):
        build('plain_c96', 2)
