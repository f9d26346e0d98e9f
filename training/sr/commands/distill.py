"""Distil the `sharp` tier (Real-ESRGAN x4plus) into a small student: L1 (+ a small FFT term) to the teacher's outputs.

  nice -n 19 python -m sr distill --name x4_sharp_c64b16 --scale 4 --arch compact_c64_b16 --iters 60000
  nice -n 19 python -m sr distill --name x4_sharp_c64b16 --resume      # continues from runs/<name>/last.pt
  python -m sr export runs/x4_sharp_c64b16/best.pt /tmp/sharp-x4.onnx   # the engine's I/O, like every run

Data: the (lr, target) shards of distill_targets.py (runs/distill_data/{train,holdout}/): each LR crop is 80 x 80,
the target the teacher's output over its central 64 x 64 core (x4; x3 and x2 are the teacher's output resized with
Lanczos-3, as the engine's outscale does). A training sample: a random --patch x --patch window of the core, fed to
the student with the HALO (8) LR pixels of real context around it, the same dihedral transform (flips, rotations)
on input and target; the loss is taken on the window only. Batches are a function of (seed, iteration, the number
of pairs loaded); pairs are read at the start (and on --resume: more pairs on disk are then used from there on).

Loss: L1 on 0..255 plus --fft W x the mean absolute difference of the orthonormal 2-D FFTs (real and imaginary
parts; it weighs the high frequencies, where L1 to a textured target is weakest, like a focal-frequency loss), plus
--swd W x the sliced Wasserstein distance between the output's and the teacher's 5 x 5 patches (swd(): texture
statistics rather than their mean; no discriminator, no VGG weights).
Every --ckpt-minutes: runs/<name>/last.pt (model, Adam, schedule, torch RNG, to resume), an evaluation on the
held-out pairs (licensed-holdout photos: Y-PSNR and SSIM of the student's output against the teacher's, core only;
sr/metrics.py), metrics.jsonl, and best.pt (the best held-out Y-PSNR), in train.py's formats (export.py reads them).
--bf16-until N: iterations below N run under bfloat16 autocast (AMX), weights, Adam and loss in float32, as train.py.
"""
import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from PIL import Image

from sr.commands import distill_targets as dt
from sr.checkpoint import open_run, save_atomic, warm_start
from sr.metrics import psnr_y, ssim_y
from sr.models import build, count_params

PER_INVOCATION = ('threads', 'ckpt_minutes', 'max_minutes', 'stop_at', 'data')


class PairSampler:
    """Random windows of the teacher pairs of one scale, dihedrally transformed; a batch is a function of
    (seed, iteration) for the pairs loaded."""

    def __init__(self, lr: np.ndarray, target: np.ndarray, scale: int, patch: int):
        assert patch <= dt.CORE
        self.lr, self.t, self.s, self.p = lr, target, scale, patch

    def batch_uint8(self, seed: int, iteration: int, size: int):
        rng = np.random.default_rng([seed, iteration])
        s, p, h = self.s, self.p, dt.HALO
        lrs, ts = [], []
        for _ in range(size):
            i = int(rng.integers(0, len(self.lr)))
            y, x = (int(v) for v in rng.integers(0, dt.CORE - p + 1, size=2))
            lr = self.lr[i, y:y + p + 2 * h, x:x + p + 2 * h]
            t = self.t[i, y * s:(y + p) * s, x * s:(x + p) * s]
            k, flip = int(rng.integers(0, 4)), rng.random() < 0.5
            if flip:
                lr, t = lr[:, ::-1], t[:, ::-1]
            lrs.append(np.rot90(lr, k))
            ts.append(np.rot90(t, k))
        return (np.ascontiguousarray(np.stack(lrs).transpose(0, 3, 1, 2)),
                np.ascontiguousarray(np.stack(ts).transpose(0, 3, 1, 2)))


def core(out: torch.Tensor, scale: int, halo: int = dt.HALO) -> torch.Tensor:
    """The output over the input's core (the input less `halo` LR pixels on every side)."""
    m = halo * scale
    return out[:, :, m:out.shape[2] - m, m:out.shape[3] - m]


def fft_l1(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    d = torch.fft.rfft2(a.float(), norm='ortho') - torch.fft.rfft2(b.float(), norm='ortho')
    return d.real.abs().mean() + d.imag.abs().mean()


def swd(a: torch.Tensor, b: torch.Tensor, gen: torch.Generator, k: int = 5, directions: int = 32,
        window: int = 64) -> torch.Tensor:
    """Sliced Wasserstein distance between the k x k patches of `a` and of `b`, per image (Heitz et al., "A Sliced
    Wasserstein Loss for Neural Texture Synthesis", 2021; on pixels here, not VGG features): both patch sets are
    projected on the same random unit directions, sorted, and compared by mean absolute difference. It compares the
    distributions of local structure, not pixel positions, so unlike L1 it is not minimised by the blurred mean of
    a texture the student cannot place exactly: it asks for texture with the teacher's statistics. The patches of
    one random `window` x `window` region (the same for both) keep it to a fraction of a step's time on a CPU."""
    h, w = a.shape[2], a.shape[3]
    y = int(torch.randint(0, max(1, h - window - k + 2), (1,), generator=gen))
    x = int(torch.randint(0, max(1, w - window - k + 2), (1,), generator=gen))
    region = (slice(None), slice(None), slice(y, y + window + k - 1), slice(x, x + window + k - 1))
    pa = F.unfold(a[region], k)  # (B, C*k*k, N)
    pb = F.unfold(b[region], k)
    d = torch.randn(pa.shape[1], directions, generator=gen)
    d = d / d.norm(dim=0, keepdim=True)
    qa = torch.einsum('bcn,cm->bmn', pa, d).sort(dim=2).values
    qb = torch.einsum('bcn,cm->bmn', pb, d).sort(dim=2).values
    return (qa - qb).abs().mean()


def textured(lr: np.ndarray) -> np.ndarray:
    """The held-out pairs whose LR core has at least the median luma gradient (flat sky and fog are most of some
    photos, and there every output scores high): the `_tex` metrics are over these."""
    c = slice(dt.HALO, dt.HALO + dt.CORE)
    y = lr[:, c, c].astype(np.float64) @ np.array([0.299, 0.587, 0.114])
    g = np.abs(np.diff(y, axis=1)).mean(axis=(1, 2)) + np.abs(np.diff(y, axis=2)).mean(axis=(1, 2))
    return g >= np.median(g)


def summary(ps: list, ss: list, tex: np.ndarray, prefix: str) -> dict:
    ps, ss = np.array(ps), np.array(ss)
    return {f'{prefix}_psnr': round(float(ps.mean()), 3), f'{prefix}_ssim': round(float(ss.mean()), 4),
            f'{prefix}_psnr_tex': round(float(ps[tex].mean()), 3), f'{prefix}_ssim_tex': round(float(ss[tex].mean()), 4)}


def evaluate(model, lr: np.ndarray, target: np.ndarray, scale: int, batch: int = 16) -> dict:
    """Mean Y-PSNR / SSIM (sr/metrics.py, shave 0: the core has real context) of the student's uint8 output
    against the teacher's over the held-out pairs' cores (all of them, and the textured half: `_tex`)."""
    model.eval()
    ps, ss = [], []
    with torch.no_grad():
        for j in range(0, len(lr), batch):
            x = torch.from_numpy(lr[j:j + batch].transpose(0, 3, 1, 2).astype(np.float32))
            y = core(model(x), scale).clamp(0, 255).round().to(torch.uint8).permute(0, 2, 3, 1).numpy()
            for a, b in zip(y, target[j:j + batch]):
                ps.append(psnr_y(a, b, 0))
                ss.append(ssim_y(a, b, 0))
    model.train()
    return summary(ps, ss, textured(lr), 'val')


def baseline(lr: np.ndarray, target: np.ndarray, scale: int) -> dict:
    """The same numbers for PIL bicubic upscaling of the core (what the student starts above)."""
    c, n = slice(dt.HALO, dt.HALO + dt.CORE), dt.CORE * scale
    ups = [np.asarray(Image.fromarray(np.ascontiguousarray(a[c, c])).resize((n, n), Image.BICUBIC)) for a in lr]
    return summary([psnr_y(u, t, 0) for u, t in zip(ups, target)], [ssim_y(u, t, 0) for u, t in zip(ups, target)],
                   textured(lr), 'bicubic')


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--name', required=True)
    ap.add_argument('--resume', action='store_true')
    ap.add_argument('--scale', type=int, choices=[2, 3, 4], default=4)
    ap.add_argument('--arch', default='compact_c64_b16')
    ap.add_argument('--iters', type=int, default=60000)
    ap.add_argument('--batch', type=int, default=16)
    ap.add_argument('--patch', type=int, default=48, help='LR window (loss region) inside the 64 px core')
    ap.add_argument('--lr', type=float, default=5e-4)
    ap.add_argument('--fft', type=float, default=0.05, help='weight of the FFT L1 term (0: L1 alone)')
    ap.add_argument('--swd', type=float, default=0.0,
                    help='weight of the sliced Wasserstein patch term (swd(): texture statistics; 0: none)')
    ap.add_argument('--swd-patch', type=int, default=5, help="the SWD term's patch size (output pixels)")
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--threads', type=int, default=2)
    ap.add_argument('--ckpt-minutes', type=float, default=5.0)
    ap.add_argument('--max-minutes', type=float, default=0, help='checkpoint and stop once this long has passed')
    ap.add_argument('--stop-at', type=int, default=0, help='checkpoint and stop at this iteration')
    ap.add_argument('--bf16-until', type=int, default=0, help='bfloat16 autocast below this iteration (train.py)')
    ap.add_argument('--init', help='warm-start weights from a checkpoint (same arch; shapes that match)')
    ap.add_argument('--data', default=str(dt.DATA), help='root of the shards (distill_targets.py --out)')
    ap.add_argument('--out', help='directory that holds the run (DIR/<name>/) instead of training/runs')
    a = ap.parse_args()

    run, last, ck = open_run(a, PER_INVOCATION)
    if ck is not None:
        cfg = ck['meta']['config']
    else:
        if last.exists():
            sys.exit(f'{last} exists: use --resume or another --name')
        cfg = {k: v for k, v in vars(a).items() if k not in ('resume', 'name', 'out')}
    cfg.setdefault('swd', 0.0)  # runs started before the SWD term
    cfg.setdefault('swd_patch', 5)
    c = argparse.Namespace(**cfg)
    torch.manual_seed(c.seed)
    model = build(c.arch, c.scale).to(memory_format=torch.channels_last)
    if a.resume:
        model.load_state_dict(ck['model'])
    elif c.init:
        warm_start(model, c.init)
    opt = torch.optim.Adam(model.parameters(), lr=c.lr)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=c.lr, total_steps=c.iters, pct_start=0.02,
                                                anneal_strategy='cos', div_factor=10, final_div_factor=100)
    it, train_sec, best = 0, 0.0, -1.0
    if a.resume:
        opt.load_state_dict(ck['opt'])
        sched.load_state_dict(ck['sched'])
        torch.set_rng_state(ck['torch_rng'])
        it, train_sec, best = ck['iteration'], ck['train_seconds'], ck['best_val']
        print(f'resumed at iteration {it} ({train_sec / 60:.1f} min trained, best val {best})', flush=True)

    data = Path(c.data)
    tr_lr, tr_t = dt.load_shards('train', c.scale, data)
    va_lr, va_t = dt.load_shards('holdout', c.scale, data)
    sampler = PairSampler(tr_lr, tr_t, c.scale, c.patch)
    base = baseline(va_lr, va_t, c.scale)
    meta = {'arch': c.arch, 'scale': c.scale, 'degradation': 'real (sharp-tier distillation: realesrgan-x4plus targets)',
            'teacher': 'realesrgan-x4plus', 'config': cfg, 'params_train': count_params(model),
            'train_pairs': len(tr_lr), 'holdout_pairs': len(va_lr), 'holdout_baseline': base}
    print(f'{a.name}: {c.arch} x{c.scale}, {count_params(model)} train-time params, {len(tr_lr)} training pairs, '
          f'{len(va_lr)} held-out pairs (bicubic vs teacher: {base})', flush=True)

    loss_avg, l1_avg = 0.0, 0.0

    def checkpoint():
        nonlocal best
        ev = evaluate(model, va_lr, va_t, c.scale)
        v = ev['val_psnr']
        weights = model.state_dict()
        state = {'meta': meta, 'model': weights, 'opt': opt.state_dict(), 'sched': sched.state_dict(),
                 'torch_rng': torch.get_rng_state(), 'iteration': it, 'train_seconds': train_sec,
                 'best_val': max(best, v)}
        if v > best:
            best = v
            save_atomic({'meta': meta, 'model': weights, 'iteration': it, 'train_seconds': train_sec,
                         'val_psnr': v, 'val_ssim': ev['val_ssim'], 'set5_psnr': None}, run / 'best.pt')
        save_atomic(state, last)
        rec = {'iteration': it, 'train_minutes': round(train_sec / 60, 2), 'lr': sched.get_last_lr()[0],
               'cpu_minutes_this_process': round(time.process_time() / 60, 2), 'threads': c.threads,
               'train_pairs': len(tr_lr), 'loss': round(loss_avg, 4), 'l1': round(l1_avg, 4), **ev,
               'best_val': best, **base, 'time': time.strftime('%Y-%m-%dT%H:%M:%S')}
        with open(run / 'metrics.jsonl', 'a') as f:
            f.write(json.dumps(rec) + '\n')
        print(json.dumps(rec), flush=True)

    t_ck, t_start = time.time(), time.time()
    model.train()
    if it == 0:
        checkpoint()  # iteration 0: the nearest-upsampling start, on record
    while it < c.iters:
        t0 = time.time()
        lr_u8, t_u8 = sampler.batch_uint8(c.seed, it, c.batch)
        x = torch.from_numpy(lr_u8.astype(np.float32)).contiguous(memory_format=torch.channels_last)
        tgt = torch.from_numpy(t_u8.astype(np.float32))
        with torch.autocast('cpu', dtype=torch.bfloat16, enabled=it < c.bf16_until):
            out = core(model(x), c.scale)
        out = out.float()
        l1 = F.l1_loss(out, tgt)
        loss = l1 + c.fft * fft_l1(out, tgt) if c.fft else l1
        if c.swd:
            loss = loss + c.swd * swd(out, tgt, torch.Generator().manual_seed(c.seed * 1_000_003 + it), c.swd_patch)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        sched.step()
        it += 1
        loss_avg = 0.98 * loss_avg + 0.02 * loss.item() if loss_avg else loss.item()
        l1_avg = 0.98 * l1_avg + 0.02 * l1.item() if l1_avg else l1.item()
        train_sec += time.time() - t0
        if it % 100 == 0:
            print(f'it {it} loss {loss_avg:.3f} l1 {l1_avg:.3f} {train_sec / it:.3f}s/it', flush=True)
        stop = it == c.stop_at
        late = bool(c.max_minutes) and time.time() - t_start >= c.max_minutes * 60
        if time.time() - t_ck >= c.ckpt_minutes * 60 or it == c.iters or stop or late:
            checkpoint()
            t_ck = time.time()
            if stop or late:
                break
    print('done' if it >= c.iters else 'stopped', it, flush=True)


if __name__ == '__main__':
    main()
