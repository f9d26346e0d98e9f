"""Train an SR network on CPU with periodic, resumable checkpoints.

  nice -n 19 python train.py --name x2_fast --scale 2 --arch plain_c32_b3 --iters 300000
  nice -n 19 python train.py --name x2_fast --resume          # continues from runs/x2_fast/last.pt

Every --ckpt-minutes: runs/<name>/last.pt (model + Adam + iteration, to resume), a quick Y-PSNR
on Set5 and on held-out BSD200 images (appended to metrics.jsonl), and best.pt (weights of the
checkpoint with the best held-out PSNR). The run is deterministic given --seed: batches are a
function of (seed, iteration) and the torch RNG state is saved.
"""
import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, str(Path(__file__).resolve().parent))
from sr.checkpoint import save_atomic  # noqa: E402
from sr.data import PatchSampler  # noqa: E402
from sr.images import list_set, load_rgb  # noqa: E402
from sr.imresize import imresize, modcrop  # noqa: E402
from sr.degrade import photo_lr  # noqa: E402
from sr.metrics import psnr_y  # noqa: E402
from sr.grow import grow  # noqa: E402
from sr.models import build, count_params  # noqa: E402

HOLDOUT = 8  # last BSD200 images (sorted by name) kept out of training for model selection


def quick_eval(model, scale, pairs):
    model.eval()
    ps = []
    with torch.no_grad():
        for lr, hr in pairs:
            x = torch.from_numpy(lr).permute(2, 0, 1)[None].float()
            y = model(x).clamp(0, 255).round()[0].permute(1, 2, 0).to(torch.uint8).numpy()
            ps.append(psnr_y(y, hr, scale))
    model.train()
    return round(float(np.mean(ps)), 3)


def eval_pairs(files, scale, degradation, seed):
    out = []
    rng = np.random.default_rng([seed, 999])
    for f in files:
        hr = modcrop(load_rgb(f), scale)
        lr = photo_lr(hr, scale, rng) if degradation == 'photo' else imresize(hr, 1.0 / scale)
        out.append((lr, hr))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--name', required=True)
    ap.add_argument('--resume', action='store_true')
    ap.add_argument('--scale', type=int, default=2)
    ap.add_argument('--arch', default='plain_c32_b3')
    ap.add_argument('--degradation', choices=['bicubic', 'photo'], default='bicubic')
    ap.add_argument('--sets', default='T91,BSD200')
    ap.add_argument('--iters', type=int, default=300000)
    ap.add_argument('--batch', type=int, default=16)
    ap.add_argument('--patch', type=int, default=48, help='LR patch size')
    ap.add_argument('--lr', type=float, default=1e-3)
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--threads', type=int, default=2)
    ap.add_argument('--ckpt-minutes', type=float, default=5.0)
    ap.add_argument('--init', help='warm-start weights from a checkpoint (same arch, shapes that match)')
    ap.add_argument('--grow-from', help='warm-start by growing a smaller trained PlainSR checkpoint '
                    '(same function at step 0, sr/grow.py)')
    ap.add_argument('--max-minutes', type=float, default=0, help='stop (after a checkpoint) after this long')
    ap.add_argument('--stop-at', type=int, default=0, help='checkpoint and stop at this iteration')
    ap.add_argument('--bf16-until', type=int, default=0,
                    help='mixed precision: bfloat16 autocast (fp32 weights, optimiser and loss) for iterations '
                         'below this one, float32 from it on; ~2.7x faster on CPUs with AMX')
    a = ap.parse_args()

    runs = Path(os.environ.get('SR_RUNS_DIR', Path(__file__).resolve().parent / 'runs'))
    run = runs / a.name
    run.mkdir(parents=True, exist_ok=True)
    torch.set_num_threads(a.threads)
    last = run / 'last.pt'
    if a.resume:
        ck = torch.load(last, map_location='cpu', weights_only=False)
        cfg = ck['meta']['config']
        cfg.update({k: getattr(a, k) for k in ('threads', 'ckpt_minutes', 'max_minutes', 'stop_at')})
        if a.bf16_until:  # a resumed run may switch its remaining bulk to mixed precision
            cfg['bf16_until'] = a.bf16_until
            cfg.setdefault('bf16_from', ck['iteration'])
    else:
        if last.exists():
            sys.exit(f'{last} exists: use --resume or another --name')
        cfg = {k: v for k, v in vars(a).items() if k not in ('resume', 'name')}
        if a.bf16_until:
            cfg['bf16_from'] = 0
    cfg.setdefault('bf16_until', 0)  # configs saved before the option existed
    c = argparse.Namespace(**cfg)
    torch.manual_seed(c.seed)
    model = build(c.arch, c.scale).to(memory_format=torch.channels_last)  # faster CPU convs
    opt = torch.optim.Adam(model.parameters(), lr=c.lr)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=c.lr, total_steps=c.iters, pct_start=0.02,
                                                anneal_strategy='cos', div_factor=10, final_div_factor=100)
    it, train_sec, best = 0, 0.0, -1.0
    if a.resume:
        model.load_state_dict(ck['model'])
        opt.load_state_dict(ck['opt'])
        sched.load_state_dict(ck['sched'])
        torch.set_rng_state(ck['torch_rng'])
        it, train_sec, best = ck['iteration'], ck['train_seconds'], ck['best_val']
        print(f'resumed at iteration {it} ({train_sec / 60:.1f} min trained, best val {best})', flush=True)
    elif c.init:
        src = torch.load(c.init, map_location='cpu', weights_only=False)['model']
        own = model.state_dict()
        own.update({k: v for k, v in src.items() if k in own and own[k].shape == v.shape})
        model.load_state_dict(own)
    elif getattr(c, 'grow_from', None):
        src = torch.load(c.grow_from, map_location='cpu', weights_only=False)
        small = build(src['meta']['arch'], c.scale)
        small.load_state_dict(src['model'])
        grow(small, model)
    meta = {'arch': c.arch, 'scale': c.scale, 'degradation': c.degradation, 'config': cfg,
            'params_train': count_params(model)}
    sampler = PatchSampler(c.sets.split(','), c.scale, c.patch, c.degradation, exclude_last=HOLDOUT)
    val = eval_pairs(list_set('BSD200')[-HOLDOUT:], c.scale, c.degradation, c.seed)
    set5 = eval_pairs(list_set('Set5'), c.scale, 'bicubic', c.seed)
    print(f'{a.name}: {c.arch} x{c.scale} {c.degradation}, {count_params(model)} train-time params, '
          f'{len(sampler.images)} training images', flush=True)

    def checkpoint():
        nonlocal best
        v = quick_eval(model, c.scale, val)
        s5 = quick_eval(model, c.scale, set5) if c.degradation == 'bicubic' else None
        state = {'meta': meta, 'model': model.state_dict(), 'opt': opt.state_dict(),
                 'sched': sched.state_dict(), 'torch_rng': torch.get_rng_state(), 'iteration': it,
                 'train_seconds': train_sec, 'best_val': max(best, v)}
        if v > best:
            best = v
            state['best_val'] = best
            save_atomic({'meta': meta, 'model': model.state_dict(), 'iteration': it,
                         'train_seconds': train_sec, 'val_psnr': v, 'set5_psnr': s5}, run / 'best.pt')
        save_atomic(state, last)
        rec = {'iteration': it, 'train_minutes': round(train_sec / 60, 2), 'lr': sched.get_last_lr()[0],
               'cpu_minutes_this_process': round(time.process_time() / 60, 2),
               'threads': c.threads, 'loss': round(loss_avg, 4), 'val_psnr': v, 'set5_psnr': s5, 'best_val': best,
               'time': time.strftime('%Y-%m-%dT%H:%M:%S')}
        with open(run / 'metrics.jsonl', 'a') as f:
            f.write(json.dumps(rec) + '\n')
        print(json.dumps(rec), flush=True)

    loss_avg, t_ck, t_start = 0.0, time.time(), time.time()
    model.train()
    while it < c.iters:
        t0 = time.time()
        lr_np, hr_np = sampler.batch(c.seed, it, c.batch)
        with torch.autocast('cpu', dtype=torch.bfloat16, enabled=it < c.bf16_until):
            out = model(torch.from_numpy(lr_np).contiguous(memory_format=torch.channels_last))
        loss = F.l1_loss(out.float(), torch.from_numpy(hr_np))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        sched.step()
        it += 1
        train_sec += time.time() - t0
        loss_avg = 0.98 * loss_avg + 0.02 * loss.item() if it > 1 else loss.item()
        if it % 100 == 0:
            print(f'it {it} loss {loss_avg:.3f} {train_sec / it:.3f}s/it', flush=True)
        stop = it == getattr(c, 'stop_at', 0)
        if time.time() - t_ck >= c.ckpt_minutes * 60 or it == c.iters or stop:
            checkpoint()
            t_ck = time.time()
            if stop or (c.max_minutes and time.time() - t_start >= c.max_minutes * 60):
                break
    print('done' if it >= c.iters else 'stopped', it, flush=True)


if __name__ == '__main__':
    main()
