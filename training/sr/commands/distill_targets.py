"""Teacher targets for distilling the `sharp` tier (Real-ESRGAN x4plus) into our own x2 / x3 / x4 networks.

  nice -n 19 python -m sr distill-targets --split holdout --pairs 64        # held-out pairs (licensed-holdout photos)
  nice -n 19 python -m sr distill-targets --split train --pairs 3000        # training pairs; rerun to continue
  python -m sr distill-targets --count                                      # pairs on disk per split

Each pair: a random crop of a licensed photo (data/fetch_licensed.py; train split, or the holdout split, never the
research sets), `CORE + 2 * HALO` LR pixels square times a downscale factor d drawn from --downscales, degraded to
LR by sr/degrade.real_lr (kernel, blur, noise, JPEG 4:2:0 once or twice). The teacher (models/realesrgan-x4plus.onnx,
onnxruntime CPU, input and output RGB 0..255 NCHW, int64 `crop` trimming its features before the upsampling tail as
the engine's tiling does) runs on the whole LR crop; its x4 output is rounded to uint8 as the engine writes it, and
the x3 and x2 targets are that output resized with PIL's Lanczos-3 (what the engine's `outscale` does with sharp's
lanczos3), all before the core is cut out, so the filters never see a crop edge. The LR crop is the same for the
three scales (one teacher run serves all three: the sharp tier's inputs are the same small images whatever scale
is asked for). Stored per pair: `lr` (the whole LR crop, HALO pixels of real context around the core, for the
student's own receptive field) and `t4`, `t3`, `t2` (the teacher's output over the core only).

The teacher's receptive radius is 349 LR pixels, but what reaches the core from more than HALO pixels away is small
(measured by --halo-check: the core's output from a crop with HALO pixels of context vs one with 40).

Shards: runs/distill_data/<split>/shard_NNNNN.npz (np.savez_compressed: lr N x 80 x 80 x 3, t4 N x 256 x 256 x 3,
t3 N x 192 x 192 x 3, t2 N x 128 x 128 x 3, all uint8, plus `meta`: JSON per pair (photo, position, downscale,
degradation parameters)). Shard i is a function of (--seed, split, i): a stopped run loses at most the shard in
progress, and a rerun skips the shards on disk (written atomically) and makes the next ones.
"""
import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np
from PIL import Image

from sr.degrade import real_lr, real_params
from sr.images import list_set, load_rgb
from sr.paths import TRAINING

HERE = TRAINING
TEACHER = HERE.parent / 'models' / 'realesrgan-x4plus.onnx'
DATA = HERE / 'runs' / 'distill_data'
CORE, HALO = 64, 8  # LR pixels: the targets cover the core, the LR crop has HALO more on every side
TAIL = 2  # the teacher's tailRadius (models/manifest.json): its last LR pixels before the crop are not exact
SPLITS = {'train': ('licensed', 1), 'holdout': ('licensed-holdout', 2)}


def teacher_session(path=TEACHER, threads: int = 2):
    import onnxruntime as ort
    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    so.inter_op_num_threads = 1
    return ort.InferenceSession(str(path), so, providers=['CPUExecutionProvider'])


def run_teacher(sess, lr: np.ndarray, margin: int) -> np.ndarray:
    """The teacher's x4 output (uint8, rounded as the engine writes it) for lr[margin:-margin] (LR pixels), computed
    on the whole of `lr`: its features are cropped to that region plus the tail's halo before upsampling."""
    c = margin - TAIL
    x = lr.astype(np.float32).transpose(2, 0, 1)[None]
    y = sess.run(None, {'input': x, 'crop': np.array([c, c, c, c], np.int64)})[0][0]
    y = np.clip(np.rint(y), 0, 255).astype(np.uint8).transpose(1, 2, 0)
    t = TAIL * 4
    return np.ascontiguousarray(y[t:y.shape[0] - t, t:y.shape[1] - t])


def targets(sess, lr: np.ndarray) -> dict:
    """t4, t3, t2 over lr's core (lr is CORE + 2 HALO square)."""
    c = HALO - TAIL
    full = run_teacher(sess, lr, TAIL)  # the whole crop less the tail's halo: (CORE + 2 c) * 4 pixels square
    out = {}
    for s in (4, 3, 2):
        n = (CORE + 2 * c) * s
        im = full if s == 4 else np.asarray(Image.fromarray(full).resize((n, n), Image.LANCZOS), dtype=np.uint8)
        out[f't{s}'] = np.ascontiguousarray(im[c * s:(c + CORE) * s, c * s:(c + CORE) * s])
    return out


class Photos:
    def __init__(self, split: str):
        self.files = list_set(SPLITS[split][0])
        self.images = [load_rgb(f) for f in self.files]
        areas = np.array([im.shape[0] * im.shape[1] for im in self.images], np.float64)
        self.p = areas / areas.sum()  # by area: every photo pixel equally likely

    def pair(self, sess, rng: np.random.Generator, downscales) -> tuple:
        d = int(downscales[int(rng.integers(0, len(downscales)))])
        n = (CORE + 2 * HALO) * d
        ok = [i for i, im in enumerate(self.images) if min(im.shape[:2]) >= n]
        p = self.p[ok] / self.p[ok].sum()
        i = ok[int(rng.choice(len(ok), p=p))]
        im = self.images[i]
        y, x = int(rng.integers(0, im.shape[0] - n + 1)), int(rng.integers(0, im.shape[1] - n + 1))
        params = real_params(d, rng)
        lr = real_lr(np.ascontiguousarray(im[y:y + n, x:x + n]), d, rng, params)
        meta = {'photo': self.files[i].name, 'y': y, 'x': x, 'downscale': d, 'degradation': params}
        return lr, targets(sess, lr), meta


def shard_path(split: str, i: int, root: Path = DATA) -> Path:
    return root / split / f'shard_{i:05d}.npz'


def make_shard(sess, photos: Photos, split: str, i: int, size: int, seed: int, downscales, root: Path = DATA) -> Path:
    rng = np.random.default_rng([seed, SPLITS[split][1], i])
    lrs, ts, metas = [], {4: [], 3: [], 2: []}, []
    for _ in range(size):
        lr, t, meta = photos.pair(sess, rng, downscales)
        lrs.append(lr)
        metas.append(meta)
        for s in ts:
            ts[s].append(t[f't{s}'])
    path = shard_path(split, i, root)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix('.tmp.npz')
    np.savez_compressed(tmp, lr=np.stack(lrs), t4=np.stack(ts[4]), t3=np.stack(ts[3]), t2=np.stack(ts[2]),
                        meta=np.frombuffer(json.dumps(metas).encode(), np.uint8))
    os.replace(tmp, path)
    return path


def shards(split: str, root: Path = DATA) -> list:
    return sorted((root / split).glob('shard_[0-9][0-9][0-9][0-9][0-9].npz'))


def load_shards(split: str, scale: int, root: Path = DATA):
    """All pairs of a split for one scale: lr (N x 80 x 80 x 3), target (N x 64s x 64s x 3), both uint8."""
    files = shards(split, root)
    if not files:
        raise FileNotFoundError(f'no shards in {root / split} (python -m sr distill-targets --split {split})')
    lr, t = [], []
    for f in files:
        with np.load(f) as z:
            lr.append(z['lr'])
            t.append(z[f't{scale}'])
    return np.concatenate(lr), np.concatenate(t)


def count(root: Path = DATA) -> dict:
    out = {}
    for split in SPLITS:
        n = 0
        for f in shards(split, root):
            with np.load(f) as z:
                n += len(z['lr'])
        out[split] = n
    return out


def halo_check(sess, photos: Photos, n: int = 3, big: int = 40):
    """Y-PSNR of the core's teacher output made with HALO pixels of context vs with `big` (a wider crop)."""
    from sr.metrics import psnr_y
    rng = np.random.default_rng(0)
    for _ in range(n):
        size = (CORE + 2 * big) * 4
        big_enough = [im for im in photos.images if min(im.shape[:2]) >= size]
        im = big_enough[int(rng.integers(0, len(big_enough)))]
        y, x = int(rng.integers(0, im.shape[0] - size + 1)), int(rng.integers(0, im.shape[1] - size + 1))
        lr = real_lr(np.ascontiguousarray(im[y:y + size, x:x + size]), 4, rng)
        wide = run_teacher(sess, lr, big)
        d = big - HALO
        narrow = targets(sess, np.ascontiguousarray(lr[d:d + CORE + 2 * HALO, d:d + CORE + 2 * HALO]))['t4']
        nopad = run_teacher(sess, np.pad(lr[big:big + CORE, big:big + CORE], ((TAIL, TAIL), (TAIL, TAIL), (0, 0)),
                                         mode='edge'), TAIL)  # the core alone (no context)
        diff = np.abs(wide.astype(int) - narrow.astype(int))
        print(f'halo {HALO}: Y-PSNR vs halo {big} {psnr_y(narrow, wide, 0):.2f} dB (max diff {diff.max()}, '
              f'mean {diff.mean():.3f}); no context (edge-padded core): {psnr_y(nopad, wide, 0):.2f} dB', flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--split', choices=sorted(SPLITS), default='train')
    ap.add_argument('--pairs', type=int, default=3000, help='make shards until the split has at least this many pairs')
    ap.add_argument('--shard-size', type=int, default=32)
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--downscales', default='2,3,4', help='downscale factors of the photo crops, drawn uniformly')
    ap.add_argument('--threads', type=int, default=2)
    ap.add_argument('--max-minutes', type=float, default=0, help='stop after the shard that passes this')
    ap.add_argument('--out', default=str(DATA))
    ap.add_argument('--count', action='store_true', help='print the pairs on disk per split and exit')
    ap.add_argument('--halo-check', action='store_true')
    a = ap.parse_args()
    root = Path(a.out)
    if a.count:
        print(json.dumps(count(root)))
        return
    sess = teacher_session(threads=a.threads)
    photos = Photos(a.split)
    if a.halo_check:
        halo_check(sess, photos)
        return
    downscales = [int(v) for v in a.downscales.split(',')]
    t0, i = time.time(), 0
    have = count(root)[a.split]
    while have < a.pairs:
        if shard_path(a.split, i, root).exists():
            i += 1
            continue
        t = time.time()
        make_shard(sess, photos, a.split, i, a.shard_size, a.seed, downscales, root)
        have += a.shard_size
        print(json.dumps({'split': a.split, 'shard': i, 'pairs': have, 's_per_pair': round((time.time() - t) / a.shard_size, 2),
                          'time': time.strftime('%Y-%m-%dT%H:%M:%S')}), flush=True)
        i += 1
        if a.max_minutes and time.time() - t0 >= a.max_minutes * 60:
            break
    print(f'{a.split}: {have} pairs in {root / a.split}', flush=True)


if __name__ == '__main__':
    main()
