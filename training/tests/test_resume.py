"""A run stopped at a checkpoint and resumed ends with the weights of an uninterrupted run.

Same batches, same optimiser and schedule state; the weights agree to float32 rounding (~1e-9 here;
oneDNN's reductions may take another summation order when buffers land at other addresses), while
two uninterrupted runs are bit-identical."""
import os
import subprocess
import sys
from pathlib import Path

import torch

TRAIN = ['-m', 'sr', 'train']
ARGS = ['--scale', '2', '--arch', 'plain_c16_b2', '--sets', 'T91', '--batch', '2', '--patch', '16',
        '--iters', '6', '--threads', '1', '--seed', '5']


def run(runs_dir, *extra):
    env = dict(os.environ, SR_RUNS_DIR=str(runs_dir))
    subprocess.run([sys.executable, *TRAIN, *extra], env=env, check=True, capture_output=True)


def test_resume_is_exact(tmp_path):
    run(tmp_path, '--name', 'straight', *ARGS)
    run(tmp_path, '--name', 'split', *ARGS, '--stop-at', '3')
    half = torch.load(tmp_path / 'split' / 'last.pt', weights_only=False)
    assert half['iteration'] == 3
    run(tmp_path, '--name', 'split', '--resume')
    a = torch.load(tmp_path / 'straight' / 'last.pt', weights_only=False)
    b = torch.load(tmp_path / 'split' / 'last.pt', weights_only=False)
    assert a['iteration'] == b['iteration'] == 6
    for k in a['model']:
        assert torch.allclose(a['model'][k], b['model'][k], rtol=0, atol=1e-6), k
    assert a['sched']['last_epoch'] == b['sched']['last_epoch'] == 6
    assert (tmp_path / 'split' / 'best.pt').exists()
    assert len((tmp_path / 'split' / 'metrics.jsonl').read_text().splitlines()) == 2


def test_mixed_precision_bulk_then_float32(tmp_path):
    """--bf16-until N trains iterations below N under bfloat16 autocast (fp32 weights) and the rest in
    float32; the switch survives a resume, and a resumed run may switch an fp32 run over."""
    run(tmp_path, '--name', 'fp32', *ARGS)
    run(tmp_path, '--name', 'mixed', *ARGS, '--bf16-until', '4', '--stop-at', '3')
    run(tmp_path, '--name', 'mixed', '--resume')
    run(tmp_path, '--name', 'switched', *ARGS, '--stop-at', '3')
    run(tmp_path, '--name', 'switched', '--resume', '--bf16-until', '4')
    a = torch.load(tmp_path / 'fp32' / 'last.pt', weights_only=False)
    b = torch.load(tmp_path / 'mixed' / 'last.pt', weights_only=False)
    s = torch.load(tmp_path / 'switched' / 'last.pt', weights_only=False)
    assert b['meta']['config']['bf16_until'] == 4 and b['iteration'] == 6
    assert s['meta']['config']['bf16_until'] == 4 and s['iteration'] == 6
    for k in a['model']:
        assert a['model'][k].dtype == b['model'][k].dtype == torch.float32, k
        assert torch.isfinite(b['model'][k]).all(), k
    # bfloat16 forward passes change the weights (not a no-op flag) but only by rounding-sized steps
    diff = max((a['model'][k] - b['model'][k]).abs().max().item() for k in a['model'])
    assert 0 < diff < 1e-2


def test_fitted_iters_fill_the_time_left():
    from sr.commands.train import fitted_iters
    # 100 s to the deadline, 20 s kept for the last checkpoints, 0.05 s/it at 95%: 1520 more iterations
    assert fitted_iters(1000, 0.05, now=0.0, deadline=100.0, upper=10**6) == 1000 + 1520
    assert fitted_iters(1000, 0.05, now=0.0, deadline=100.0, upper=2000) == 2000  # --iters caps it
    assert fitted_iters(1000, 0.05, now=90.0, deadline=100.0, upper=10**6) == 1001  # already late


def test_fit_minutes_sizes_the_schedule_to_the_time(tmp_path):
    """--fit-minutes: after the probe the run's length is fixed so that it ends in time, and the one-cycle
    schedule is built for that length, so the last iteration runs at its final lr (lr / 1000) instead of a
    run cut off mid-schedule by --max-minutes; a resume of the finished run keeps the fitted length."""
    args = [a for a in ARGS if a not in ('--iters', '6')]
    env = dict(os.environ, SR_RUNS_DIR=str(tmp_path))
    r = subprocess.run([sys.executable, *TRAIN, '--name', 'fit', *args, '--iters', '1000000', '--lr', '0.001',
                        '--fit-probe', '40', '--fit-minutes', '0.5', '--ckpt-minutes', '100'],
                       env=env, check=True, capture_output=True, text=True)
    assert 'fit: ' in r.stdout and 'iterations end within 0.5 min' in r.stdout, r.stdout
    last = torch.load(tmp_path / 'fit' / 'last.pt', weights_only=False)
    iters = last['meta']['config']['iters']
    assert 40 < iters < 1000000 and last['iteration'] == iters and last['sched']['last_epoch'] == iters
    assert abs(last['opt']['param_groups'][0]['lr'] - 1e-6) < 1e-9
    assert 'done' in r.stdout.splitlines()[-1]
    bad = subprocess.run([sys.executable, *TRAIN, '--name', 'bad', *args, '--iters', '30', '--fit-probe', '40',
                          '--fit-minutes', '1'], env=env, capture_output=True, text=True)
    assert bad.returncode == 2 and '--fit-minutes sizes a new run' in bad.stderr
