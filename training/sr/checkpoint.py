"""Checkpoint files: `last.pt` (model + optimiser + progress, to resume) and `best.pt` (weights)."""
import os
from pathlib import Path

import torch

from .models import build


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
