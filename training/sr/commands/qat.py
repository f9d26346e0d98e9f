"""Quantization-aware fine-tuning of a trained float network for int8 inference (sr/quant.py).

  nice -n 19 python -m sr qat --name x2_fast2_qat --from runs/x2_fast2/best.pt --iters 3000 --threads 1
  nice -n 19 python -m sr qat --name x2_fast2_qat --resume     # after a stop, from runs/<name>/last.pt
  python -m sr export-int8 runs/x2_fast2_qat/best.pt exports/ours-fast-x2-int8.onnx

The float checkpoint is folded (rep-conv branches -> single 3x3 convs, as for export), the hidden
activation scales are initialised on training patches (`--calib-batches` batches of the training
sampler: the parent's --sets without its held-out images, drawn as the parent drew them: --hr-scales,
--flat-below, --flat-keep), then the folded weights, biases and activation
scales are fine-tuned through the fake quantization in float32 (no bf16 autocast: its rounding would
blur the quantization grid the network is learning to live with), L1 loss, Adam, cosine learning
rate from --lr down to --lr/100. `--box K` keeps every folded weight within K int8 grid steps of the
parent's (sr/quant.py `QuantSR.weight_box`); `--distill W` makes W of the target the parent's output.
`--equalize P` equalizes the hidden channels' ranges first (`QuantSR.equalize`). Same data, held-out selection,
checkpoints and metrics as train.py: runs/<name>/last.pt (resume), best.pt (best held-out PSNR of the fake-quant
network), metrics.jsonl.
The first checkpoint (iteration 0) is the calibrated network before any fine-tuning (plain
post-training quantization with our scales; `--iters 0` stops there), and metrics records carry the
parent's held-out PSNR.

On a lent GPU, as train.py (training/README.md "On a lent GPU"): `--device cuda --data <pack> --workers N --out DIR`
(TRAIN_SCRIPT=train_qat.py bash gpu_train.sh ... does this). `--fit-minutes M` (as train.py's) times the first
`--fit-probe` iterations and then shortens --iters so that the cosine schedule ends within M minutes of the
process start: a run inside one device-tool command ends annealed instead of cut off by --max-minutes. Calibration runs on the CPU either way; checkpoints hold
CPU tensors, so a run may move between devices on --resume.
"""
import argparse
import json
import math
import sys
import time
from pathlib import Path

import torch
import torch.nn.functional as F

from sr.checkpoint import load_model, open_run, save_atomic
from sr.data import Batches, PatchSampler, set_images
from sr.quant import QuantSR
from sr.commands.train import HOLDOUT, PER_INVOCATION as TRAIN_PER_INVOCATION, ScheduleFit, batch_tensor, check_fit_args, eval_pairs, held_out_images, pick_device, quick_eval, to_cpu  # noqa: E402,E501
from sr.paths import TRAINING

PER_INVOCATION = TRAIN_PER_INVOCATION + ('eval_every',)  # options a resumed run takes from its new command line


# how a parent run drew its crops and which images it held out (train.py's --hr-scales, --flat-below, --flat-keep,
# --val): fine-tuning and calibration sample the same way, and select on the same held-out images
OLD_SAMPLING = {'hr_scales': [1.0], 'flat_below': 0.0, 'flat_keep': 1.0, 'val': 'BSD200'}


def parent_sampling(config: dict) -> dict:
    return {'hr_scales': [float(f) for f in str(config.get('hr_scales', '1')).split(',')],
            'flat_below': float(config.get('flat_below', 0.0)), 'flat_keep': float(config.get('flat_keep', 1.0)),
            'val': config.get('val', 'BSD200')}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--name', required=True)
    ap.add_argument('--resume', action='store_true')
    ap.add_argument('--from', dest='parent', help='float checkpoint to fine-tune (runs/<run>/best.pt)')
    ap.add_argument('--iters', type=int, default=3000)
    ap.add_argument('--batch', type=int, default=16)
    ap.add_argument('--patch', type=int, default=48, help='LR patch size')
    ap.add_argument('--lr', type=float, default=2e-5, help='weights and biases (cosine to lr/100)')
    ap.add_argument('--scale-lr', type=float, default=2e-4,
                    help='log activation scales (Adam: roughly the relative change per step)')
    ap.add_argument('--distill', type=float, default=0.0,
                    help='weight W of the parent\'s output as a target: loss = (1-W) L1(out, HR) + W L1(out, parent(LR))')
    ap.add_argument('--box', type=float, default=0.0,
                    help='keep every weight within this many int8 grid steps of the parent\'s (0: unbounded)')
    ap.add_argument('--equalize', type=float, default=0.0,
                    help='cross-layer equalization of the hidden channels with this power before calibrating (0: none)')
    ap.add_argument('--screen', type=float, default=0.0,
                    help='share of training and calibration crops replaced by synthetic screen content '
                         '(sr/synthetic.py)')
    ap.add_argument('--border', type=float, default=0.0,
                    help='share of training and calibration crops given a dark band at one edge (sr/synthetic.py)')
    ap.add_argument('--calib-batches', type=int, default=8)
    ap.add_argument('--seed', type=int, default=11, help='batch seed (the parent\'s seed picks the held-out pairs)')
    ap.add_argument('--threads', type=int, default=1)
    ap.add_argument('--ckpt-minutes', type=float, default=5.0)
    ap.add_argument('--eval-every', type=int, default=0, help='also checkpoint every N iterations (0: by time only)')
    ap.add_argument('--max-minutes', type=float, default=0, help='checkpoint and stop once this long has passed')
    ap.add_argument('--fit-minutes', type=float, default=0,
                    help='size the run so that its cosine schedule ends within this many minutes of the process start '
                         '(a device-tool command limit), as train.py: measured over --fit-probe iterations, at most --iters')
    ap.add_argument('--fit-probe', type=int, default=200, help='iterations measured for --fit-minutes')
    ap.add_argument('--stop-at', type=int, default=0, help='checkpoint and stop at this iteration')
    ap.add_argument('--data', help='packed images (sr pack-data) instead of the dataset folders; same batches')
    ap.add_argument('--device', choices=['cpu', 'cuda'], default='cpu')
    ap.add_argument('--workers', type=int, default=0, help='processes making batches ahead; same batches')
    ap.add_argument('--out', help='directory that holds the run (DIR/<name>/) instead of training/runs')
    a = ap.parse_args()
    check_fit_args(ap, a)
    dev = pick_device(a.device)

    run, last, ck = open_run(a, PER_INVOCATION)
    if ck is not None:
        cfg = ck['meta']['config']
        meta = ck['meta']
    else:
        if last.exists():
            sys.exit(f'{last} exists: use --resume or another --name')
        if not a.parent:
            ap.error('--from is required for a new run')
        cfg = {k: v for k, v in vars(a).items() if k not in ('resume', 'name', 'out')}
        pk = torch.load(a.parent, map_location='cpu', weights_only=False)
        pmeta = pk['meta']
        meta = {'arch': pmeta['arch'], 'scale': pmeta['scale'], 'degradation': pmeta['degradation'],
                'qat': True, 'parent': a.parent, 'parent_iteration': pk.get('iteration'),
                'parent_seed': pmeta['config']['seed'], 'parent_sets': pmeta['config'].get('sets', 'T91,BSD200'),
                'parent_sampling': parent_sampling(pmeta['config']), 'config': cfg}
    for k, v in (('distill', 0.0), ('box', 0.0), ('screen', 0.0), ('border', 0.0), ('equalize', 0.0), ('data', None),
                 ('device', 'cpu'), ('workers', 0), ('fit_minutes', 0.0), ('fit_probe', 200)):
        cfg.setdefault(k, v)  # configs saved before the option existed
    c = argparse.Namespace(**cfg)
    scale, degradation = meta['scale'], meta['degradation']
    torch.manual_seed(c.seed)
    pack = None
    if c.data:
        from sr.pack import Pack
        pack = Pack(c.data)
    sets = meta['parent_sets'].split(',')
    ps = meta.get('parent_sampling', OLD_SAMPLING)  # runs saved before it was recorded sampled as OLD_SAMPLING
    hr_scales = tuple(ps['hr_scales'])
    sampler = PatchSampler(sets, scale, c.patch, degradation, exclude_last=HOLDOUT, pack=pack, screen=c.screen,
                           border=c.border, hr_scales=hr_scales, flat_below=ps['flat_below'], flat_keep=ps['flat_keep'])
    val = eval_pairs(held_out_images(ps['val'], pack), scale, degradation, meta['parent_seed'])
    set5 = eval_pairs(set_images('Set5', pack), scale, 'bicubic', meta['parent_seed'])

    ppath = Path(meta['parent'])
    if not ppath.exists():  # a relative --from given from training/ while resuming from elsewhere
        ppath = TRAINING / meta['parent']
    parent, _ = load_model(str(ppath), fused=True)  # float32: initial weights, and the teacher for --distill
    parent = parent.to(memory_format=torch.channels_last)
    # calibration batches: training patches only, from a seed the fine-tuning batches never use
    calib = [torch.from_numpy(sampler.batch(c.seed + 1000, i, c.batch)[0]) for i in range(c.calib_batches)]

    def start_weights():
        """The parent folded, and equalized if asked (deterministic: the same again on --resume)."""
        q = QuantSR.from_plain(parent)
        if c.equalize:
            q.equalize(calib, c.equalize)
        return q

    start = start_weights() if c.box or not a.resume else None
    # +- c.box grid steps of the start (calibration below changes only the activation scales)
    box = [(lo.to(dev), hi.to(dev)) for lo, hi in start.weight_box(c.box)] if c.box else None
    if a.resume:
        model = QuantSR.for_arch(meta['arch'], scale)
        model.load_state_dict(ck['model'])
    else:
        meta['parent_val'] = quick_eval(parent, scale, val)
        meta['parent_set5'] = quick_eval(parent, scale, set5) if degradation == 'bicubic' else None
        model = start
        meta['calibration'] = model.calibrate(calib)  # on the CPU
    model = model.to(dev).to(memory_format=torch.channels_last)
    parent = parent.to(dev)
    scale_params = [model.log_act_scale]
    weights = [p for n, p in model.named_parameters() if n != 'log_act_scale']
    opt = torch.optim.Adam([{'params': weights, 'lr': c.lr}, {'params': scale_params, 'lr': c.scale_lr}])
    # cosine from each group's lr down to lr/100, over c.iters as it is at each step: --fit-minutes shortens it once,
    # after the probe (whose iterations run at ~the full lr either way)
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda i: 0.01 + 0.99 * 0.5 * (1 + math.cos(math.pi * min(i, c.iters) / max(c.iters, 1))))
    it, train_sec, best = 0, 0.0, -1.0
    fitting = bool(c.fit_minutes) and not a.resume
    fit = ScheduleFit(c.fit_minutes, c.fit_probe, c.iters) if fitting else None
    if a.resume:
        opt.load_state_dict(ck['opt'])  # moves Adam's moments to the parameters' device
        sched.load_state_dict(ck['sched'])
        torch.set_rng_state(ck['torch_rng'])
        it, train_sec, best = ck['iteration'], ck['train_seconds'], ck['best_val']
        print(f'resumed at iteration {it} ({train_sec / 60:.1f} min trained, best val {best})', flush=True)
    print(f'{a.name}: QAT of {meta["parent"]} ({meta["arch"]} x{scale} {degradation}), parent val '
          f'{meta.get("parent_val")} set5 {meta.get("parent_set5")}, {len(sampler.images)} training images', flush=True)

    loss_avg = 0.0

    def checkpoint():
        nonlocal best
        v = quick_eval(model, scale, val)
        s5 = quick_eval(model, scale, set5) if degradation == 'bicubic' else None
        model.quant = False  # the same weights unquantized: how far the float function drifted from the parent
        v_float = quick_eval(model, scale, val)
        model.quant = True
        weights = to_cpu(model.state_dict())
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
               'scale_lr': sched.get_last_lr()[1], 'threads': c.threads, 'device': dev.type,
               'loss': round(loss_avg, 4),
               'val_psnr': v, 'val_psnr_unquantized': v_float, 'set5_psnr': s5, 'best_val': best,
               'parent_val': meta.get('parent_val'),
               'parent_set5': meta.get('parent_set5'),
               'act_scales': [round(s, 6) for s in model.act_scales().tolist()],
               'time': time.strftime('%Y-%m-%dT%H:%M:%S')}
        with open(run / 'metrics.jsonl', 'a') as f:
            f.write(json.dumps(rec) + '\n')
        print(json.dumps(rec), flush=True)

    if not a.resume:
        checkpoint()  # iteration 0: calibrated, not fine-tuned
    key = (sets, scale, c.patch, degradation, HOLDOUT, c.data, c.screen, c.border)
    if ps != OLD_SAMPLING:  # the key names the batches; old runs keep theirs
        key += (hr_scales, ps['flat_below'], ps['flat_keep'])
    batches = Batches(sampler, key, c.seed, c.batch, it, workers=c.workers)
    t_ck, t_start = time.time(), time.time()
    model.train()
    try:
        while it < c.iters:
            t0 = time.time()
            lr_u8, hr_u8 = batches.get(it)
            x = batch_tensor(lr_u8, dev).contiguous(memory_format=torch.channels_last)
            out = model(x)
            loss = F.l1_loss(out, batch_tensor(hr_u8, dev))
            if c.distill:
                with torch.no_grad():
                    teacher = parent(x)
                loss = (1 - c.distill) * loss + c.distill * F.l1_loss(out, teacher)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            if box:
                model.clamp_weights(box)
            sched.step()
            it += 1
            fitted = fit.after(it) if fitting else None
            if fitted:  # the cosine schedule reads c.iters at every step
                c.iters = cfg['iters'] = fitted
                fitting = False
            train_sec += time.time() - t0
            loss_avg = 0.98 * loss_avg + 0.02 * loss.item() if loss_avg else loss.item()
            if it % 100 == 0:
                print(f'it {it} loss {loss_avg:.3f} {train_sec / it:.3f}s/it', flush=True)
            stop = it == c.stop_at
            late = bool(c.max_minutes) and time.time() - t_start >= c.max_minutes * 60  # on time (gpu_train.sh)
            # not while the probe times the iterations (as train.py), but on time and at the end either way
            if ((not fitting and (time.time() - t_ck >= c.ckpt_minutes * 60 or (c.eval_every and it % c.eval_every == 0)))
                    or it == c.iters or stop or late):
                checkpoint()
                t_ck = time.time()
                if stop or late:
                    break
    finally:
        batches.close()
    print('done' if it >= c.iters else 'stopped', it, flush=True)


if __name__ == '__main__':
    main()
