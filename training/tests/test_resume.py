"""A run stopped at a checkpoint and resumed ends with the weights of an uninterrupted run.

Same batches, same optimiser and schedule state; the weights agree to float32 rounding (~1e-9 here;
oneDNN's reductions may take another summation order when buffers land at other addresses), while
two uninterrupted runs are bit-identical."""
import os
import subprocess
import sys
from pathlib import Path

import torch

TRAIN = str(Path(__file__).resolve().parents[1] / 'train.py')
ARGS = ['--scale', '2', '--arch', 'plain_c16_b2', '--sets', 'T91', '--batch', '2', '--patch', '16',
        '--iters', '6', '--threads', '1', '--seed', '5']


def run(runs_dir, *extra):
    env = dict(os.environ, SR_RUNS_DIR=str(runs_dir))
    subprocess.run([sys.executable, TRAIN, *extra], env=env, check=True, capture_output=True)


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
