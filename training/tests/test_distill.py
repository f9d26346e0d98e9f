"""Sharp-tier distillation: teacher-target bookkeeping (with a stand-in teacher), shards, the student network."""
import numpy as np
import pytest
import torch
from PIL import Image

from sr.commands import distill_targets as dt
from sr.models import build


class NearestTeacher:
    """Stands in for realesrgan-x4plus.onnx: same inputs (float NCHW 0..255, int64 crop), nearest x4 output."""

    def run(self, _, feeds):
        x, (t, l, b, r) = feeds['input'], [int(v) for v in feeds['crop']]
        x = x[:, :, t:x.shape[2] - b, l:x.shape[3] - r]
        return [x.repeat(4, axis=2).repeat(4, axis=3) + 0.3]


def test_targets_cover_the_core():
    lr = np.random.default_rng(0).integers(0, 256, (dt.CORE + 2 * dt.HALO,) * 2 + (3,), dtype=np.uint8)
    t = dt.targets(NearestTeacher(), lr)
    core = lr[dt.HALO:dt.HALO + dt.CORE, dt.HALO:dt.HALO + dt.CORE]
    assert np.array_equal(t['t4'], core.repeat(4, 0).repeat(4, 1))  # rounded like the engine: +0.3 is gone
    for s in (3, 2):
        assert t[f't{s}'].shape == (dt.CORE * s, dt.CORE * s, 3) and t[f't{s}'].dtype == np.uint8
    # x2: Lanczos of the whole output, then the core: equal to the reference away from nothing (no crop edge inside)
    c = dt.HALO - dt.TAIL
    full = lr[dt.TAIL:-dt.TAIL, dt.TAIL:-dt.TAIL].repeat(4, 0).repeat(4, 1)
    n = full.shape[0] // 2
    ref = np.asarray(Image.fromarray(full).resize((n, n), Image.LANCZOS))[2 * c:2 * (c + dt.CORE), 2 * c:2 * (c + dt.CORE)]
    assert np.array_equal(t['t2'], ref)


@pytest.fixture
def photos(tmp_path, monkeypatch):
    rng = np.random.default_rng(1)
    for split in ('train', 'holdout'):
        (tmp_path / split).mkdir()
        for k in range(2):
            Image.fromarray(rng.integers(0, 256, (340, 400, 3), dtype=np.uint8)).save(tmp_path / split / f'p{k}.png')
    monkeypatch.setenv('SR_LICENSED_DIR', str(tmp_path))
    return tmp_path


def test_shards_are_deterministic_and_load_per_scale(photos, tmp_path):
    p = dt.Photos('train')
    a = dt.make_shard(NearestTeacher(), p, 'train', 0, 3, 1, [2, 3, 4], tmp_path / 'a')
    b = dt.make_shard(NearestTeacher(), p, 'train', 0, 3, 1, [2, 3, 4], tmp_path / 'b')
    dt.make_shard(NearestTeacher(), p, 'train', 1, 3, 1, [2, 3, 4], tmp_path / 'a')
    with np.load(a) as za, np.load(b) as zb:
        for k in ('lr', 't4', 't3', 't2', 'meta'):
            assert np.array_equal(za[k], zb[k]), k
    for s in (2, 3, 4):
        lr, t = dt.load_shards('train', s, tmp_path / 'a')
        assert lr.shape == (6, 80, 80, 3) and t.shape == (6, 64 * s, 64 * s, 3)
        assert lr.dtype == t.dtype == np.uint8
    assert dt.count(tmp_path / 'a') == {'train': 6, 'holdout': 0}


@pytest.mark.parametrize('scale', [2, 3, 4])
def test_compact_student_shapes_fuse_and_start_as_nearest(scale):
    torch.manual_seed(0)
    m = build('compact_c16_b3', scale).eval()
    x = torch.rand(1, 3, 10, 12) * 255
    with torch.no_grad():
        y = m(x)
        assert y.shape == (1, 3, 10 * scale, 12 * scale)
        assert torch.allclose(y, torch.nn.functional.interpolate(x, scale_factor=scale, mode='nearest'), atol=1e-3)
        for p in m.tail.parameters():
            p.add_(torch.randn_like(p) * 0.05)
        before = m(x)
        m.fuse()
        assert torch.allclose(m(x), before, atol=1e-2)
    assert m.receptive_radius == 5


def test_distill_resume_matches_an_uninterrupted_run(photos, tmp_path):
    import subprocess
    import sys
    from pathlib import Path
    here = Path(__file__).resolve().parents[1]
    data = tmp_path / 'data'
    for split in ('train', 'holdout'):
        dt.make_shard(NearestTeacher(), dt.Photos(split), split, 0, 3, 1, [2, 3, 4], data)
    base = [sys.executable, '-m', 'sr', 'distill', '--scale', '2', '--arch', 'compact_c8_b1', '--iters', '6',
            '--batch', '2', '--patch', '16', '--threads', '1', '--data', str(data), '--out', str(tmp_path / 'runs'),
            '--bf16-until', '3']
    run = lambda *extra: subprocess.run(base + list(extra), check=True, capture_output=True, text=True)  # noqa: E731
    run('--name', 'straight')
    run('--name', 'stopped', '--stop-at', '4')
    run('--name', 'stopped', '--resume')
    a = torch.load(tmp_path / 'runs' / 'straight' / 'last.pt', weights_only=False)
    b = torch.load(tmp_path / 'runs' / 'stopped' / 'last.pt', weights_only=False)
    assert a['iteration'] == b['iteration'] == 6
    for k in a['model']:
        assert torch.allclose(a['model'][k], b['model'][k], atol=1e-6), k
    best = torch.load(tmp_path / 'runs' / 'straight' / 'best.pt', weights_only=False)
    assert best['meta']['arch'] == 'compact_c8_b1' and 'val_ssim' in best
    # and the checkpoint exports in the engine's convention
    from sr.commands.export import export
    info = export(str(tmp_path / 'runs' / 'straight' / 'best.pt'), str(tmp_path / 'student.onnx'))
    assert info['scale'] == 2 and info['receptive_radius_lr'] == 3


def test_swd_compares_texture_statistics_not_positions():
    """The --swd term: zero for the same image, small for the same texture moved, large for its blurred mean (which
    L1 to a texture the student cannot place would prefer)."""
    from sr.commands.distill import swd
    gen = lambda: torch.Generator().manual_seed(0)  # noqa: E731
    noise = torch.rand(2, 3, 96, 96, generator=torch.Generator().manual_seed(1)) * 255
    moved = torch.roll(noise, shifts=(7, 11), dims=(2, 3))
    blurred = torch.nn.functional.avg_pool2d(noise, 5, 1, 2)
    assert swd(noise, noise, gen()).item() == 0
    assert swd(noise, moved, gen()).item() < 0.1 * swd(noise, blurred, gen()).item()
    assert torch.nn.functional.l1_loss(noise, moved).item() > torch.nn.functional.l1_loss(noise, blurred).item()
