"""Export a QAT checkpoint (train_qat.py) to a QDQ int8 ONNX file in the engine's I/O convention.

  python -m sr export-int8 runs/x2_fast2_qat/best.pt exports/ours-fast-x2-int8.onnx

Same convention as export.py: input "input" N x 3 x H x W float32 RGB 0..255 -> output "output"
N x 3 x sH x sW float32 RGB clamped to 0..255, H and W dynamic, opset 17. Inside, every conv is a
DequantizeLinear(int8 weights, per output channel) / DequantizeLinear(int32 bias) / Q->DQ (uint8,
per tensor) group that onnxruntime fuses into QLinearConv (checked here on the optimized graph:
the export fails if a float Conv is left). A JSON sidecar (<file>.json) like export.py's adds
precision, the activation scales and the parent float checkpoint.
"""
import argparse
import json
import sys
from pathlib import Path

import torch

from sr.checkpoint import training_relative
from sr.quant import export_qdq, load_qat, ort_optimized_ops


def export(checkpoint: str, out: str, opset: int = 17, float_tail: bool = False) -> dict:
    model, meta = load_qat(checkpoint)
    model.float_tail = float_tail
    q = export_qdq(model, out, opset)
    ops = ort_optimized_ops(out)
    floats = 1 if float_tail else 0  # the tail conv, and only it, in float32
    if ops.get('Conv', 0) != floats or ops.get('QLinearConv', 0) + ops.get('ConvInteger', 0) != q['convs'] - floats:
        raise RuntimeError(f'onnxruntime does not run every conv but {floats} as int8: {ops}')
    ck = torch.load(checkpoint, map_location='cpu', weights_only=False)
    info = {'file': Path(out).name, 'precision': 'int8',
            'checkpoint': training_relative(checkpoint), 'arch': meta['arch'], 'scale': meta['scale'],
            'degradation': meta['degradation'], 'receptive_radius_lr': model.receptive_radius,
            'params': sum(p.numel() for c in model.convs for p in c.parameters()),
            'input': 'input: N x 3 x H x W float32 RGB 0..255',
            'output': 'output: N x 3 x sH x sW float32 RGB 0..255', 'opset': opset,
            'quantization': 'QDQ: int8 weights (symmetric, per output channel), int32 bias, uint8 activations '
                            '(per tensor, zero point 0 after ReLU; ' + (
                                'tail output not requantized: the tail conv runs in float32)' if float_tail else
                                'tail output scale 1/255 zero point 128)'),
            'float_tail': float_tail,
            'act_scales': q['act_scales'], 'padded_channels': q['padded_channels'], 'ort_optimized_ops': ops,
            'parent': meta['parent'], 'parent_iteration': meta.get('parent_iteration'),
            'parent_val_psnr': meta.get('parent_val'),
            'iteration': ck.get('iteration'), 'train_minutes': round(ck.get('train_seconds', 0) / 60, 1),
            'val_psnr': ck.get('val_psnr'), 'set5_psnr_quick': ck.get('set5_psnr')}
    Path(out + '.json').write_text(json.dumps(info, indent=1) + '\n')
    return info


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('checkpoint')
    ap.add_argument('out')
    ap.add_argument('--opset', type=int, default=17)
    ap.add_argument('--float-tail', action='store_true',
                    help='leave the tail conv\'s output unrounded (sr/quant.py export_qdq): for self-ensembled entries')
    a = ap.parse_args()
    print(json.dumps(export(a.checkpoint, a.out, a.opset, a.float_tail), indent=1))


if __name__ == '__main__':
    main()
