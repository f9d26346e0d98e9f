"""Train an SR network (CPU, or a CUDA GPU with --device cuda) with periodic, resumable checkpoints.

  nice -n 19 python -m sr train --name x2_fast --scale 2 --arch plain_c32_b3 --iters 300000
  nice -n 19 python -m sr train --name x2_fast --resume          # continues from runs/x2_fast/last.pt
  python -m sr train --name x2_fast --data packs/sr_data.npz --device cuda --workers 14 --out $OUT  # gpu_train.sh

Every --ckpt-minutes: runs/<name>/last.pt (model + Adam + iteration, to resume), a quick Y-PSNR
on Set5 and on held-out images (appended to metrics.jsonl), and best.pt (weights of the
checkpoint with the best held-out PSNR). The held-out images (--val) are the last 8 BSD200 images, or
the licensed photos' holdout split (licensed-holdout: the default when --sets has `licensed` and not
BSD200; data/fetch_licensed.py). The run is deterministic given --seed: batches are a
function of (seed, iteration) and the torch RNG state is saved.

Images come from the dataset folders, or with --data from a file made by `sr pack-data` (the same arrays
in the same order: the same batches). --device cuda trains on the GPU (cuDNN autotuning, TF32 off so
float32 stays float32, --bf16-until autocasts on the GPU); checkpoints hold CPU tensors either way, so
a run may move between devices on --resume. --workers N makes the batches in N processes ahead of the
GPU (same batches). --out DIR puts the run in DIR/<name> (gpu_train.sh: the device tool's $OUT).
"""
import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

from sr.checkpoint import open_run, save_atomic, warm_start
from sr.data import Batches, PatchSampler, set_images
from sr.images import list_set, load_rgb
from sr.imresize import imresize, modcrop
from sr.degrade import photo_lr, train_real_lr
from sr.metrics import psnr_y
from sr.grow import grow
from sr.models import build, count_params

HOLDOUT = 8  # last BSD200 images (sorted by name) kept out of training for model selection


def quick_eval(model, scale, pairs):
    model.eval()
    dev = next(model.parameters(), torch.empty(0)).device
    ps = []
    with torch.no_grad():
        for lr, hr in pairs:
            x = torch.from_numpy(lr).permute(2, 0, 1)[None].float().to(dev)
            y = model(x).clamp(0, 255).round()[0].permute(1, 2, 0).to(torch.uint8).cpu().numpy()
            ps.append(psnr_y(y, hr, scale))
    model.train()
    return round(float(np.mean(ps)), 3)


def held_out_images(val: str, pack=None) -> list:
    """The images a run selects its checkpoints on (--val): BSD200's last HOLDOUT, or a set of its own; paths, or
    arrays from a pack (eval_pairs takes either)."""
    if val == 'BSD200':
        return set_images('BSD200', pack)[-HOLDOUT:] if pack else list_set('BSD200')[-HOLDOUT:]
    return set_images(val, pack) if pack else list_set(val)


def eval_pairs(files, scale, degradation, seed):
    """(LR, HR) pairs of whole images; `files` are paths or HxWx3 uint8 arrays (from a pack)."""
    out = []
    rng = np.random.default_rng([seed, 999])
    for f in files:
        hr = modcrop(f if isinstance(f, np.ndarray) else load_rgb(f), scale)
        if degradation == 'photo':
            lr = photo_lr(hr, scale, rng)
        elif degradation == 'real':
            lr = train_real_lr(hr, scale, rng)
        else:
            lr = imresize(hr, 1.0 / scale)
        out.append((lr, hr))
    return out


def to_cpu(obj):
    """A state dict (nested dicts / lists of tensors) with every tensor on the CPU: device-free checkpoints."""
    if isinstance(obj, torch.Tensor):
        return obj.detach().cpu()
    if isinstance(obj, dict):
        return {k: to_cpu(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return type(obj)(to_cpu(v) for v in obj)
    return obj


def pick_device(name: str) -> torch.device:
    if name == 'cuda':
        if not torch.cuda.is_available():
            sys.exit(f'--device cuda: no usable CUDA device here (torch {torch.__version__}, built for CUDA '
                     f'{torch.version.cuda}: torch.cuda.is_available() is False). Train with --device cpu, or '
                     'on the lent GPU machine with training/scripts/gpu_train.sh (training/README.md).')
        torch.backends.cudnn.benchmark = True  # fixed patch shapes: let cuDNN pick the fastest kernels
        torch.backends.cudnn.allow_tf32 = False  # float32 means float32 (bf16 only through --bf16-until)
        torch.backends.cuda.matmul.allow_tf32 = False
    return torch.device(name)


def batch_tensor(a: np.ndarray, dev: torch.device) -> torch.Tensor:
    """A uint8 N x 3 x h x w batch (channels-last memory) as float32 on `dev`, same values (the GPU gets uint8)."""
    if dev.type == 'cpu':
        return torch.from_numpy(a.astype(np.float32))
    return torch.from_numpy(a).pin_memory().to(dev, non_blocking=True).float()


PER_INVOCATION = ('threads', 'ckpt_minutes', 'max_minutes', 'stop_at', 'data', 'device', 'workers')
T_PROCESS = time.time()  # --fit-minutes counts from here: start-up (imports, data, workers) included


def fitted_iters(probe: int, rate: float, now: float, deadline: float, upper: int, margin: float = 0.95,
                 reserve_s: float = 20.0) -> int:
    """--fit-minutes: the run's length once `probe` iterations have shown `rate` seconds per iteration,
    so the schedule ends before `deadline` (wall clock): the time left, less `reserve_s` for the last
    checkpoints, at `margin` of the measured speed; at most `upper` (--iters), at least `probe` + 1."""
    left = max(0.0, deadline - now - reserve_s)
    return int(min(upper, max(probe + 1, probe + int(left / rate * margin))))


def check_fit_args(ap: argparse.ArgumentParser, a: argparse.Namespace) -> None:
    """--fit-minutes sizes a new run from its own probe (train.py and train_qat.py)."""
    if a.fit_minutes and (a.resume or (a.stop_at and a.stop_at <= a.fit_probe) or a.iters <= a.fit_probe):
        ap.error('--fit-minutes sizes a new run: not with --resume, and --iters / --stop-at beyond --fit-probe')


class ScheduleFit:
    """--fit-minutes: times iterations probe // 2 .. probe (the first half warms up: worker pool, cuDNN autotuning)
    and then gives the run's length, fitted_iters() to `minutes` after the process start, at most `upper`."""

    def __init__(self, minutes: float, probe: int, upper: int):
        self.minutes, self.probe, self.upper, self.t_half = minutes, probe, upper, 0.0

    def after(self, it: int):
        """Call after iteration `it`: the fitted length once the probe is over, else None."""
        if it == self.probe // 2:
            self.t_half = time.time()
        elif it == self.probe:
            rate = (time.time() - self.t_half) / (self.probe - self.probe // 2)
            iters = fitted_iters(it, rate, time.time(), T_PROCESS + self.minutes * 60, self.upper)
            print(f'fit: {rate:.4f} s/it over iterations {self.probe // 2}-{it}: {iters} iterations end '
                  f'within {self.minutes} min of the start', flush=True)
            return iters
        return None



def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--name', required=True)
    ap.add_argument('--resume', action='store_true')
    ap.add_argument('--scale', type=int, default=2)
    ap.add_argument('--arch', default='plain_c32_b3')
    ap.add_argument('--degradation', choices=['bicubic', 'photo', 'real'], default='bicubic',
                    help="'real': sr/degrade.py's mix of clean bicubic and the real-photo pipeline (fidelity tiers)")
    ap.add_argument('--sets', default='T91,BSD200')
    ap.add_argument('--val', choices=['BSD200', 'licensed-holdout'],
                    help='held-out images for checkpoint selection: BSD200 (its last 8, kept out of training) or '
                         'licensed-holdout (data/fetch_licensed.py); default licensed-holdout when --sets has '
                         'licensed and not BSD200, else BSD200')
    ap.add_argument('--hr-scales', default='1',
                    help='sample crops from every training image at each of these sizes (comma-separated factors, '
                         '1: as it is), e.g. 0.5,0.333,0.25 for multi-megapixel camera photos (sr/data.py)')
    ap.add_argument('--flat-below', type=float, default=0.0,
                    help='a crop whose luma changes by less than this many levels per pixel on average is flat '
                         '(0: no test); flat crops are kept with probability --flat-keep, else drawn again')
    ap.add_argument('--flat-keep', type=float, default=1.0)
    ap.add_argument('--screen', type=float, default=0.0,
                    help='share of crops replaced by synthetic screen content (sr/synthetic.py: flat colour, text-like '
                         'strokes, hard edges), degraded like the others')
    ap.add_argument('--border', type=float, default=0.0, help='share of crops given a dark band at an edge')
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
    ap.add_argument('--max-minutes', type=float, default=0, help='checkpoint and stop once this long has passed')
    ap.add_argument('--stop-at', type=int, default=0, help='checkpoint and stop at this iteration')
    ap.add_argument('--fit-minutes', type=float, default=0,
                    help='size the run to end this many minutes after the process started (a lent GPU\'s '
                         'command limit): the first --fit-probe iterations run at the schedule\'s initial lr '
                         'while the speed is measured, then --iters becomes what fits (at most --iters) and the '
                         'one-cycle schedule is built for it, so it anneals fully instead of being cut off')
    ap.add_argument('--fit-probe', type=int, default=1000, help='iterations measured for --fit-minutes')
    ap.add_argument('--bf16-until', type=int, default=0,
                    help='mixed precision: bfloat16 autocast (fp32 weights, optimiser and loss) for iterations '
                         'below this one, float32 from it on; ~2.7x faster on CPUs with AMX')
    ap.add_argument('--data', help='packed images (sr pack-data) instead of the dataset folders; same batches')
    ap.add_argument('--device', choices=['cpu', 'cuda'], default='cpu')
    ap.add_argument('--workers', type=int, default=0,
                    help='processes making batches ahead (0: in the training process); same batches')
    ap.add_argument('--out', help='directory that holds the run (DIR/<name>/) instead of training/runs '
                    '(or $SR_RUNS_DIR)')
    a = ap.parse_args()
    check_fit_args(ap, a)
    dev = pick_device(a.device)

    run, last, ck = open_run(a, PER_INVOCATION)
    if ck is not None:
        cfg = ck['meta']['config']
        if a.bf16_until:  # a resumed run may switch its remaining bulk to mixed precision
            cfg['bf16_until'] = a.bf16_until
            cfg.setdefault('bf16_from', ck['iteration'])
    else:
        if last.exists():
            sys.exit(f'{last} exists: use --resume or another --name')
        cfg = {k: v for k, v in vars(a).items() if k not in ('resume', 'name', 'out')}
        if a.bf16_until:
            cfg['bf16_from'] = 0
    cfg.setdefault('bf16_until', 0)  # configs saved before the option existed
    if cfg.get('val') is None:  # runs saved before --val existed validated on BSD200
        sets = cfg['sets'].split(',')
        cfg['val'] = 'licensed-holdout' if not a.resume and 'licensed' in sets and 'BSD200' not in sets else 'BSD200'
    for k, v in (('data', None), ('device', 'cpu'), ('workers', 0), ('hr_scales', '1'),
                 ('flat_below', 0.0), ('flat_keep', 1.0), ('screen', 0.0), ('border', 0.0)):
        cfg.setdefault(k, v)
    c = argparse.Namespace(**cfg)
    torch.manual_seed(c.seed)
    model = build(c.arch, c.scale).to(memory_format=torch.channels_last)  # faster CPU convs
    # weights are set on the CPU (same initialisation on every device), then moved
    if a.resume:
        model.load_state_dict(ck['model'])
    elif c.init:
        warm_start(model, c.init)
    elif getattr(c, 'grow_from', None):
        src = torch.load(c.grow_from, map_location='cpu', weights_only=False)
        small = build(src['meta']['arch'], c.scale)
        small.load_state_dict(src['model'])
        grow(small, model)
    model = model.to(dev)
    opt = torch.optim.Adam(model.parameters(), lr=c.lr)

    def one_cycle(total):
        return torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=c.lr, total_steps=total, pct_start=0.02,
                                                   anneal_strategy='cos', div_factor=10, final_div_factor=100)
    sched = one_cycle(c.iters)  # with --fit-minutes: its initial lr (lr / 10) through the probe, rebuilt after it
    fitting = bool(getattr(c, 'fit_minutes', 0)) and not a.resume
    fit = ScheduleFit(c.fit_minutes, c.fit_probe, c.iters) if fitting else None
    it, train_sec, best = 0, 0.0, -1.0
    if a.resume:
        opt.load_state_dict(ck['opt'])  # moves Adam's moments to the parameters' device
        sched.load_state_dict(ck['sched'])
        torch.set_rng_state(ck['torch_rng'])
        it, train_sec, best = ck['iteration'], ck['train_seconds'], ck['best_val']
        print(f'resumed at iteration {it} ({train_sec / 60:.1f} min trained, best val {best})', flush=True)
    meta = {'arch': c.arch, 'scale': c.scale, 'degradation': c.degradation, 'config': cfg,
            'params_train': count_params(model)}
    pack = None
    if c.data:
        from sr.pack import Pack
        pack = Pack(c.data)
        for s in c.sets.split(',') + [c.val, 'Set5']:
            pack.names(s)  # fails early, naming what to pack, if a set is missing
    hr_scales = tuple(float(f) for f in str(c.hr_scales).split(','))
    sampler = PatchSampler(c.sets.split(','), c.scale, c.patch, c.degradation, exclude_last=HOLDOUT, pack=pack,
                           screen=c.screen, border=c.border, hr_scales=hr_scales, flat_below=c.flat_below,
                           flat_keep=c.flat_keep)
    if c.val != 'BSD200' and c.val in c.sets.split(','):  # a set of its own must never be trained on
        sys.exit(f'--val {c.val} is also in --sets')
    val = eval_pairs(held_out_images(c.val, pack), c.scale, c.degradation, c.seed)
    set5 = eval_pairs(set_images('Set5', pack) if pack else list_set('Set5'), c.scale, 'bicubic', c.seed)
    data_id = f'pack {pack.content_sha256[:16]}' if pack else 'folders'
    print(f'{a.name}: {c.arch} x{c.scale} {c.degradation}, {count_params(model)} train-time params, '
          f'{len(sampler.images)} training images ({data_id}), device {dev}', flush=True)
    batches = Batches(sampler, (c.sets.split(','), c.scale, c.patch, c.degradation, HOLDOUT, c.data, c.screen, c.border,
                                hr_scales, c.flat_below, c.flat_keep), c.seed, c.batch, it, workers=c.workers)

    def checkpoint():
        nonlocal best
        v = quick_eval(model, c.scale, val)
        s5 = quick_eval(model, c.scale, set5) if c.degradation != 'photo' else None  # clean Set5: bicubic and real
        weights = to_cpu(model.state_dict())  # no-op on the CPU
        state = {'meta': meta, 'model': weights, 'opt': to_cpu(opt.state_dict()),
                 'sched': sched.state_dict(), 'torch_rng': torch.get_rng_state(), 'iteration': it,
                 'train_seconds': train_sec, 'best_val': max(best, v)}
        if v > best:
            best = v
            state['best_val'] = best
            save_atomic({'meta': meta, 'model': weights, 'iteration': it,
                         'train_seconds': train_sec, 'val_psnr': v, 'set5_psnr': s5}, run / 'best.pt')
        save_atomic(state, last)
        rec = {'iteration': it, 'train_minutes': round(train_sec / 60, 2), 'lr': sched.get_last_lr()[0],
               'cpu_minutes_this_process': round(time.process_time() / 60, 2),
               'threads': c.threads, 'device': dev.type, 'data': data_id, 'loss': round(loss_avg, 4),
               'val_psnr': v, 'set5_psnr': s5, 'best_val': best,
               'time': time.strftime('%Y-%m-%dT%H:%M:%S')}
        with open(run / 'metrics.jsonl', 'a') as f:
            f.write(json.dumps(rec) + '\n')
        print(json.dumps(rec), flush=True)

    loss_avg, t_ck, t_start = 0.0, time.time(), time.time()
    model.train()
    try:
        while it < c.iters:
            t0 = time.time()
            lr_u8, hr_u8 = batches.get(it)
            with torch.autocast(dev.type, dtype=torch.bfloat16, enabled=it < c.bf16_until):
                out = model(batch_tensor(lr_u8, dev).contiguous(memory_format=torch.channels_last))
            loss = F.l1_loss(out.float(), batch_tensor(hr_u8, dev))
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            if not fitting:
                sched.step()
            it += 1
            fitted = fit.after(it) if fitting else None
            if fitted:
                c.iters = cfg['iters'] = fitted
                sched, fitting = one_cycle(c.iters), False
                for _ in range(it):
                    sched.step()
            loss_avg = 0.98 * loss_avg + 0.02 * loss.item() if it > 1 else loss.item()  # .item() waits for the GPU
            train_sec += time.time() - t0
            if it % 100 == 0:
                print(f'it {it} loss {loss_avg:.3f} {train_sec / it:.3f}s/it', flush=True)
            stop = it == getattr(c, 'stop_at', 0)
            late = bool(c.max_minutes) and time.time() - t_start >= c.max_minutes * 60  # on time (gpu_train.sh)
            due = time.time() - t_ck >= c.ckpt_minutes * 60 and not fitting  # the schedule is fixed first
            if due or it == c.iters or stop or late:
                checkpoint()
                t_ck = time.time()
                if stop or late:
                    break
    finally:
        batches.close()
    print('done' if it >= c.iters else 'stopped', it, flush=True)


if __name__ == '__main__':
    main()
