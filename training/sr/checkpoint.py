"""Checkpoint files: `last.pt` (model + optimiser + progress, to resume) and `best.pt` (weights)."""
import os
from pathlib import Path

import torch

from .models import build


def training_relative(path: str) -> str:
    """A checkpoint's path as the export sidecars record it: relative to training/ when inside it, else absolute."""
    here = Path(__file__).resolve().parent.parent
    src = Path(path).resolve()
    return str(src.relative_to(here)) if src.is_relative_to(here) else str(src)


def save_atomic(obj, path: Path) -> None:
    tmp = Path(str(path) + '.tmp')
    torch.save(obj, tmp)
    os.replace(tmp, path)


def load_model(path: str, fused: bool = False):
    ck = torch.load(path, map_location='cpu', weights_only=False)
    meta = ck['meta']
    if meta.get('qat'):  # train_qat.py: the folded network with fake quantization (already fused)
        from .quant import load_qat
        return load_qat(path)
    model = build(meta['arch'], meta['scale'])
    model.load_state_dict(ck['model'])
    model.eval()
    if fused:
        model.fuse()
    return model, meta


def open_run(args, per_invocation) -> tuple:
    """The run's folder, runs/<name> under --out, SR_RUNS_DIR or training/runs (made if missing), with torch's
    thread count set from --threads; returns (run, last.pt's path, the checkpoint or None). When --resume is given
    the checkpoint is loaded and its saved config takes this invocation's per_invocation options (train.py,
    train_qat.py and distill.py share this start)."""
    runs = Path(args.out or os.environ.get('SR_RUNS_DIR', Path(__file__).resolve().parent.parent / 'runs'))
    run = runs / args.name
    run.mkdir(parents=True, exist_ok=True)
    torch.set_num_threads(args.threads)
    last = run / 'last.pt'
    if not args.resume:
        return run, last, None
    ck = torch.load(last, map_location='cpu', weights_only=False)
    ck['meta']['config'].update({k: getattr(args, k) for k in per_invocation})
    return run, last, ck


def warm_start(model, path: str) -> None:
    """Loads the weights of `path` whose names and shapes match `model`'s (--init): the rest keep their init."""
    src = torch.load(path, map_location='cpu', weights_only=False)['model']
    own = model.state_dict()
    own.update({k: v for k, v in src.items() if k in own and own[k].shape == v.shape})
    model.load_state_dict(own)
