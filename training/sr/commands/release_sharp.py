"""Release a sharp-tier student (a `sr distill` run): export, score against the teacher, time beside balanced, card.

  nice -n 19 python -m sr release-sharp x4_sharp_anneal --id ours-sharp-x4
  python -m sr recipe ship ours-sharp-x4      # then: keep the checkpoint, write the recipe and the card's Files

Writes exports/<id>.onnx (+ .json sidecar), runs/<name>/release.json and ../docs/model-cards/<id>.md.
Scores: the exported file on onnxruntime (2 threads) over the held-out teacher pairs (runs/distill_data/holdout: crops
of the licensed-holdout photos, never trained on): Y-PSNR and SSIM of its output's core against the teacher's, over
all pairs and over the textured half, beside PIL bicubic (distill.py's protocol, on the ONNX file, not the checkpoint).
Speed: the file beside exports/ours-balanced-x<s>.onnx (float32, what `balanced` runs where the CPU has no int8 dot
product) in one interleaved call (sr bench), 128 x 128 input, 2 threads, with the CPU model.
"""
import argparse
import importlib.util
import json
import os
import time

import numpy as np
import onnxruntime as ort
import torch

from sr.commands import distill_targets as dt
from sr.commands.bench import bench_many, cpu_info
from sr.commands.distill import baseline, summary, textured
from sr.commands.export import export
from sr.metrics import psnr_y, ssim_y
from sr.paths import TRAINING

CARDS = TRAINING.parent / 'docs' / 'model-cards'


def score_onnx(path: str, lr: np.ndarray, target: np.ndarray, scale: int, threads: int = 2, batch: int = 16) -> dict:
    """distill.evaluate's numbers for an exported file: its uint8 output's core against the teacher's."""
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = threads
    sess = ort.InferenceSession(path, opts, providers=['CPUExecutionProvider'])
    m = dt.HALO * scale
    ps, ss = [], []
    for j in range(0, len(lr), batch):
        x = np.ascontiguousarray(lr[j:j + batch].transpose(0, 3, 1, 2).astype(np.float32))
        y = sess.run(None, {'input': x})[0]
        y = np.clip(np.round(y[:, :, m:y.shape[2] - m, m:y.shape[3] - m]), 0, 255).astype(np.uint8).transpose(0, 2, 3, 1)
        for a, b in zip(y, target[j:j + batch]):
            ps.append(psnr_y(a, b, 0))
            ss.append(ssim_y(a, b, 0))
    return summary(ps, ss, textured(lr), 'val')


def training_photos() -> str:
    """The manifest's train split, by licence: '29 photos (12 BSD-2-Clause, ...)' (data/fetch_licensed.py reads it)."""
    spec = importlib.util.spec_from_file_location('fetch_licensed', TRAINING / 'data' / 'fetch_licensed.py')
    fetch = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(fetch)
    train = [r for r in fetch.read_manifest() if r['split'] == 'train']
    by = {}
    for r in train:
        by[r['licence']] = by.get(r['licence'], 0) + 1
    return f"{len(train)} photos (" + ', '.join(f'{n} {lic}' for lic, n in sorted(by.items(), key=lambda kv: -kv[1])) + ')'


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('name')
    ap.add_argument('--id', required=True)
    ap.add_argument('--threads', type=int, default=2)
    a = ap.parse_args()
    run = TRAINING / 'runs' / a.name
    best = run / 'best.pt'
    onnx_path = TRAINING / 'exports' / f'{a.id}.onnx'
    info = export(str(best), str(onnx_path))
    ck = torch.load(best, map_location='cpu', weights_only=False)
    meta, c = ck['meta'], ck['meta']['config']
    scale = meta['scale']
    va_lr, va_t = dt.load_shards('holdout', scale)
    scores = {**score_onnx(str(onnx_path), va_lr, va_t, scale, a.threads), **baseline(va_lr, va_t, scale)}
    balanced = TRAINING / 'exports' / f'ours-balanced-x{scale}.onnx'
    speed = bench_many([str(onnx_path), str(balanced)], 128, 2, 9)
    ratio = round(speed[0]['ms_per_out_mp_median'] / speed[1]['ms_per_out_mp_median'], 2)
    metrics = [json.loads(line) for line in (run / 'metrics.jsonl').read_text().splitlines()]
    rel = {'id': a.id, 'run': a.name, 'make': f'python -m sr release-sharp {a.name} --id {a.id}',
           'onnx': f'training/exports/{a.id}.onnx', 'info': info, 'scores': scores,
           'holdout_pairs': len(va_lr), 'speed': speed, 'speed_ratio_to_balanced': ratio, 'cpu': cpu_info(),
           'best_iteration': ck['iteration'], 'best_train_minutes': round(ck['train_seconds'] / 60, 1),
           'time': time.strftime('%Y-%m-%dT%H:%M:%S')}
    (run / 'release.json').write_text(json.dumps(rel, indent=1) + '\n')
    finished = metrics[-1]['iteration'] >= c['iters']
    hist = '\n'.join(f"| {m['iteration']} | {m['train_minutes']} | {m['lr']:.2e} | {m['val_psnr']} | {m['val_ssim']} | "
                     f"{m['val_psnr_tex']} | {m['val_ssim_tex']} |" for m in metrics)
    load = ' '.join(f'{x:.1f}' for x in os.getloadavg())
    s = scores
    resized = '' if scale == 4 else f"; at x{scale} the teacher's x4 output resized with Lanczos-3, as Real-ESRGAN's outscale does"
    warm = (f"\n  Warm-started from `{c['init']}` (the weights whose shapes match: at another scale all but the last conv)."
            if c.get('init') else '')
    card = f"""# {a.id}

Generated by `python -m sr release-sharp` (training/) on {rel['time']} from the run `{a.name}`, whose `best.pt` is
kept as `training/shipped/{a.name}/best.pt` by `python -m sr recipe ship {a.id}` (the Files section at the end; the
runs behind it, root first: `python -m sr recipe show {a.id}`). The `sharp` tier's network for photos at x{scale}
(docs/engine.md, "The sharp tier"). {'The run reached the end of its learning-rate schedule.' if finished else 'The run had not reached the end of its schedule: the checkpoint below is its best so far.'}

- File: `{rel['onnx']}` (+ `.json` sidecar). ONNX opset {info['opset']}, input `input` N x 3 x H x W float32 RGB
  0..255, output `output` N x 3 x {scale}H x {scale}W float32 RGB clamped to 0..255, H and W dynamic.
- Scale x{scale}. Receptive radius (halo for tiling): **{info['receptive_radius_lr']} LR pixels**.
- Architecture `{meta['arch']}` (sr/models.py `CompactSR`, SRVGGNetCompact-style): a 3x3 conv from RGB, 3x3 convs of
  64 channels each followed by PReLU, a 3x3 conv to 3 x {scale}^2 channels, pixel shuffle (ONNX DepthToSpace), plus
  the nearest-upsampled input; trained with re-parameterised 3x3 + 1x1 + identity branches, folded for export.
- Parameters (exported graph): {info['params']:,}; training-time (with the branches): {meta['params_train']:,}.
- Teacher: Real-ESRGAN x4plus ([model card](realesrgan-x4plus.md), BSD-3-Clause). The targets are its outputs on
  degraded crops (`sr distill-targets`: 80 x 80 LR pixels, the loss on the central 64 x 64 core{resized}), so the
  student learns the teacher's look: no discriminator, no perceptual network.
- Training data: the licensed photos of `training/data/licensed-photos.tsv`, split `train`: {training_photos()};
  attributions in NOTICE, terms in docs/dataset-licences.md. Never T91, BSD200, Set5, Set14 or BSD100.
  {meta['train_pairs']} teacher pairs at this checkpoint.
- Degradation `real` (sr/degrade.py): mild blur, a resampling kernel drawn from bicubic / bilinear / area / Lanczos,
  sensor noise, JPEG quality 30-100 with 4:2:0 chroma, sometimes twice.
- Training: L1 + {c['fft']} x L1 of the orthonormal FFT difference, Adam, one-cycle cosine LR (max {c['lr']}) over
  {c['iters']} iterations of batch {c['batch']} ({c['patch']} x {c['patch']} windows of the cores with 8 pixels of
  context), seed {c['seed']}, float32, on a shared 2-core CPU at nice 19 ({c['threads']} thread(s)).{warm}
- Checkpoint: iteration {ck['iteration']} after {rel['best_train_minutes']} min of training wall time in this run.

## Against the teacher (held-out photos)

The exported file on onnxruntime over the {len(va_lr)} held-out teacher pairs (crops of the licensed holdout photos,
degraded as in training): Y-PSNR and SSIM (sr/metrics.py) of the output's 64 x 64-pixel LR core against the
teacher's, over all pairs and over the textured half (LR luma gradient at least the median: fog and sky score high
whatever the method). PIL bicubic of the same input beside, as the distance a plain resize leaves.

| | Y-PSNR vs teacher | SSIM vs teacher | textured half: Y-PSNR | SSIM |
|---|---|---|---|---|
| **{a.id}** | **{s['val_psnr']}** | **{s['val_ssim']}** | **{s['val_psnr_tex']}** | **{s['val_ssim_tex']}** |
| bicubic | {s['bicubic_psnr']} | {s['bicubic_ssim']} | {s['bicubic_psnr_tex']} | {s['bicubic_ssim_tex']} |

By eye, on whole photos and crops beside the teacher: docs/benchmarks.md "Gallery" (`bash bench/gallery/run.sh`).

## Speed (onnxruntime {ort.__version__}, 2 threads, one 128 x 128 input, {len(speed)} files interleaved, 9 runs)

{rel['cpu']}; load average {load} at release time.

| file | median ms per output MP | best |
|---|---|---|
""" + '\n'.join(f"| `{os.path.basename(b['model'])}` | {b['ms_per_out_mp_median']} | {b['ms_per_out_mp_best']} |" for b in speed) + f"""

{a.id} takes **{ratio}x** the time of ours-balanced-x{scale} (float32) per output megapixel (the bar: 3x).

## Training history (held-out pairs at each checkpoint, the checkpoint in PyTorch)

| iteration | train minutes | lr | Y-PSNR vs teacher | SSIM | textured: Y-PSNR | SSIM |
|---|---|---|---|---|---|---|
{hist}
"""
    CARDS.mkdir(parents=True, exist_ok=True)
    path = CARDS / f'{a.id}.md'
    keep = ''
    if path.exists():  # the Files section `sr recipe card` writes stays
        from sr.recipe import CARD_START
        text = path.read_text()
        keep = text[text.index(CARD_START):] if CARD_START in text else ''
    path.write_text(card + ('\n' + keep if keep else ''))
    print(card)


if __name__ == '__main__':
    main()
