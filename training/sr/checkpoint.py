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
