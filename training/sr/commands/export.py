"""Export a checkpoint to ONNX in the engine's I/O convention.

  python -m sr export runs/x2_fast/best.pt ../models/ours/fast_x2.onnx

Graph: input "input" N x 3 x H x W float32 RGB 0..255 -> output "output" N x 3 x sH x sW float32
RGB clamped to 0..255; H and W dynamic; opset 17. Re-parameterised branches are folded first, so
the graph is a plain conv stack + DepthToSpace. A JSON sidecar (<file>.json) records scale,
receptive radius (halo in LR pixels), parameters, the checkpoint's path (relative to training/) and its metrics.
"""
import argparse
import json
import sys
from pathlib import Path

import torch
import warnings

warnings.filterwarnings('ignore', category=DeprecationWarning)  # legacy exporter: stable for plain convs
from sr.checkpoint import load_model, training_relative
from sr.models import count_params


class Clamped(torch.nn.Module):
    def __init__(self, net):
        super().__init__()
        self.net = net

    def forward(self, x):
        return self.net(x).clamp(0.0, 255.0)


def export(checkpoint: str, out: str, opset: int = 17) -> dict:
    model, meta = load_model(checkpoint, fused=True)
    wrapped = Clamped(model).eval()
    x = torch.rand(1, 3, 32, 40) * 255
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    torch.onnx.export(wrapped, (x,), out, input_names=['input'], output_names=['output'],
                      dynamic_axes={'input': {0: 'n', 2: 'h', 3: 'w'},
                                    'output': {0: 'n', 2: 'sh', 3: 'sw'}},
                      opset_version=opset, dynamo=False)
    ck = torch.load(checkpoint, map_location='cpu', weights_only=False)
    info = {'file': Path(out).name, 'checkpoint': training_relative(checkpoint),
            'arch': meta['arch'], 'scale': meta['scale'],
            'degradation': meta['degradation'], 'receptive_radius_lr': model.receptive_radius,
            'params': count_params(model.fuse()) - sum(
                p.numel() for m in model.modules() if hasattr(m, 'k3') for p in
                list(m.k3.parameters()) + list(m.k1.parameters())),
            'input': 'input: N x 3 x H x W float32 RGB 0..255',
            'output': 'output: N x 3 x sH x sW float32 RGB 0..255', 'opset': opset,
            'iteration': ck.get('iteration'), 'train_minutes': round(ck.get('train_seconds', 0) / 60, 1),
            'val_psnr': ck.get('val_psnr'), 'set5_psnr_quick': ck.get('set5_psnr')}
    Path(out + '.json').write_text(json.dumps(info, indent=1) + '\n')
    return info


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('checkpoint')
    ap.add_argument('out')
    ap.add_argument('--opset', type=int, default=17)
    a = ap.parse_args()
    print(json.dumps(export(a.checkpoint, a.out, a.opset), indent=1))


if __name__ == '__main__':
    main()
