"""Evaluate an upscaler on Set5 / Set14 / BSD100 with the standard protocol.

HR -> modcrop(scale) -> MATLAB bicubic downscale (uint8) [-> optional JPEG degradation] -> upscaler
-> Y-PSNR / SSIM with shave = scale. `--bicubic` evaluates MATLAB bicubic upscaling (the baseline row).

  python -m sr evaluate --bicubic --scale 2
  python -m sr evaluate --checkpoint runs/x2_fast/best.pt
  python -m sr evaluate --onnx ../models/ours/fast_x2.onnx --scale 2
  python -m sr evaluate --checkpoint ... --jpeg 75     # photo protocol: LR saved as JPEG q75 first
"""
import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

from sr.images import TEST_SETS, list_set, load_rgb
from sr.imresize import imresize, modcrop
from sr.metrics import psnr_y, ssim_y
from sr.degrade import jpeg_roundtrip


def make_lr(hr: np.ndarray, scale: int, jpeg: int = 0) -> np.ndarray:
    lr = imresize(hr, 1.0 / scale)
    return jpeg_roundtrip(lr, jpeg) if jpeg else lr


def evaluate(upscale, scale: int, sets=TEST_SETS, jpeg: int = 0, with_ssim: bool = True,
             limit: int = 0) -> dict:
    """upscale: function(uint8 HxWx3 LR) -> uint8 HxWx3 SR of exactly scale x size."""
    out = {}
    for name in sets:
        files = list_set(name)
        if limit:
            files = files[:limit]
        ps, ss = [], []
        for f in files:
            hr = modcrop(load_rgb(f), scale)
            sr = upscale(make_lr(hr, scale, jpeg))
            assert sr.shape == hr.shape, (sr.shape, hr.shape)
            ps.append(psnr_y(sr, hr, scale))
            if with_ssim:
                ss.append(ssim_y(sr, hr, scale))
        out[name] = {'psnr': round(float(np.mean(ps)), 3),
                     'ssim': round(float(np.mean(ss)), 4) if ss else None, 'images': len(ps)}
    return out


def bicubic_upscaler(scale: int):
    return lambda lr: imresize(lr, float(scale))


def torch_upscaler(model):
    import torch

    def run(lr: np.ndarray) -> np.ndarray:
        x = torch.from_numpy(lr).permute(2, 0, 1)[None].float()
        with torch.no_grad():
            y = model(x).clamp(0, 255).round()
        return y[0].permute(1, 2, 0).to(torch.uint8).numpy()
    return run


def onnx_upscaler(path: str, threads: int = 2, qdq_reference: bool = False):
    """`qdq_reference`: graph optimizations off, so an int8 (QDQ) file runs as written (DequantizeLinear, float Conv,
    QuantizeLinear): its int8 arithmetic on a CPU whose fused QLinearConv saturates (bench.int8_dot_product)."""
    import onnxruntime as ort
    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    so.inter_op_num_threads = 1
    if qdq_reference:
        so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    sess = ort.InferenceSession(path, so, providers=['CPUExecutionProvider'])

    def run(lr: np.ndarray) -> np.ndarray:
        x = lr.transpose(2, 0, 1)[None].astype(np.float32)
        y = sess.run(['output'], {'input': x})[0][0]
        return np.clip(np.round(y), 0, 255).astype(np.uint8).transpose(1, 2, 0)
    return run


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--scale', type=int, default=0, help='defaults to the checkpoint\'s scale')
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument('--bicubic', action='store_true')
    g.add_argument('--checkpoint')
    g.add_argument('--onnx')
    ap.add_argument('--sets', default=','.join(TEST_SETS))
    ap.add_argument('--jpeg', type=int, default=0, help='JPEG quality applied to the LR input (0 = none)')
    ap.add_argument('--no-ssim', action='store_true')
    ap.add_argument('--threads', type=int, default=2)
    ap.add_argument('--json', help='also write the result here')
    a = ap.parse_args()
    scale = a.scale
    if a.bicubic:
        up, label = bicubic_upscaler(scale), 'bicubic'
    elif a.checkpoint:
        import torch
        from sr.checkpoint import load_model
        torch.set_num_threads(a.threads)
        model, meta = load_model(a.checkpoint)
        scale = scale or meta['scale']
        up, label = torch_upscaler(model), a.checkpoint
    else:
        up, label = onnx_upscaler(a.onnx, a.threads), a.onnx
    if not scale:
        ap.error('--scale is required')
    t0 = time.time()
    res = evaluate(up, scale, a.sets.split(','), a.jpeg, not a.no_ssim)
    print(f'{label} x{scale}' + (f' jpeg{a.jpeg}' if a.jpeg else '') + f' ({time.time() - t0:.0f}s)')
    print('| set | PSNR (Y) | SSIM (Y) |\n|---|---|---|')
    for k, v in res.items():
        print(f"| {k} | {v['psnr']:.2f} | {v['ssim'] if v['ssim'] is not None else '-'} |")
    if a.json:
        Path(a.json).write_text(json.dumps({'model': label, 'scale': scale, 'jpeg': a.jpeg, 'results': res}, indent=1))


if __name__ == '__main__':
    main()
