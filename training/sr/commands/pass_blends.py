"""Score self-ensembles and blends of ONNX networks from cached per-transform outputs (evaluate.py protocol).

Which passes (dihedral transforms, numbered as libs/engine/src/inference/dihedral.ts: rotate t >> 1 quarter turns,
then mirror when t is odd) and which networks to average, without rerunning the networks per combination:

  python -m sr pass-blends cache 4 f64=exports/ours-balanced-x4.onnx i64=exports/ours-balanced-x4-int8.onnx
  python -m sr pass-blends score 4 i64:0 i64:06 f64:06 i64:01234567+i96:01234567 i64:01234567+f96:0606

`cache` runs each network on every Set5 / Set14 / BSD100 LR image in all eight orientations and keeps the outputs
turned back (float32, before rounding) under --cache/<scale>/<label>/. `score` averages the listed passes with equal
weight per pass (repeat a transform to weight it) and rounds once, as the engine does; it prints mean Y-PSNR per set.
training/results/int8.md (2026-11-27) has the tables this made. Scores are evaluate.py's; the engine's harness
(engine_quality.py) gives the numbers the cards publish.
"""
import argparse
import sys
from pathlib import Path

import numpy as np

from sr.commands.evaluate import make_lr
from sr.images import TEST_SETS, list_set, load_rgb
from sr.imresize import modcrop
from sr.metrics import psnr_y


def forward(t: int, a: np.ndarray) -> np.ndarray:
    a = np.rot90(a, t >> 1)
    return a[:, ::-1] if t & 1 else a


def back(t: int, a: np.ndarray) -> np.ndarray:
    if t & 1:
        a = a[:, ::-1]
    return np.rot90(a, -(t >> 1))


def cache(scale: int, sources: list, root: Path, threads: int) -> None:
    import onnxruntime as ort
    for spec in sources:
        label, path = spec.split('=', 1)
        out = root / str(scale) / label
        if (out / 'done').exists():
            continue
        out.mkdir(parents=True, exist_ok=True)
        so = ort.SessionOptions()
        so.intra_op_num_threads, so.inter_op_num_threads = threads, 1
        sess = ort.InferenceSession(path, so, providers=['CPUExecutionProvider'])
        for name in TEST_SETS:
            for i, f in enumerate(list_set(name)):
                lr = make_lr(modcrop(load_rgb(f), scale), scale)
                passes = []
                for t in range(8):
                    x = np.ascontiguousarray(forward(t, lr)).transpose(2, 0, 1)[None].astype(np.float32)
                    y = sess.run(['output'], {'input': x})[0][0].transpose(1, 2, 0)
                    passes.append(np.ascontiguousarray(back(t, y)))
                np.save(out / f'{name}_{i}.npy', np.stack(passes).astype(np.float32))
        (out / 'done').write_text(path)
        print('cached', label, flush=True)


def score(scale: int, combos: list, root: Path) -> None:
    means = {c: {} for c in combos}
    for name in TEST_SETS:
        psnrs = {c: [] for c in combos}
        for i, f in enumerate(list_set(name)):
            hr = modcrop(load_rgb(f), scale)
            loaded = {}
            for c in combos:
                acc, n = 0.0, 0
                for part in c.split('+'):
                    label, transforms = part.split(':')
                    if label not in loaded:
                        loaded[label] = np.load(root / str(scale) / label / f'{name}_{i}.npy')
                    for t in transforms:
                        acc, n = acc + loaded[label][int(t)], n + 1
                sr = np.clip(np.round(acc / n), 0, 255).astype(np.uint8)
                psnrs[c].append(psnr_y(sr, hr, scale))
        for c in combos:
            means[c][name] = float(np.mean(psnrs[c]))
    for c in combos:
        print(f'{c:45s}', ' / '.join(f'{means[c][n]:.3f}' for n in TEST_SETS))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('command', choices=['cache', 'score'])
    ap.add_argument('scale', type=int)
    ap.add_argument('items', nargs='+', help='cache: LABEL=file.onnx ...; score: LABEL:TRANSFORMS[+LABEL:TRANSFORMS] ...')
    ap.add_argument('--cache', default='/tmp/pass_blends', help='where the per-transform outputs are kept')
    ap.add_argument('--threads', type=int, default=2)
    a = ap.parse_args()
    if a.command == 'cache':
        cache(a.scale, a.items, Path(a.cache), a.threads)
    else:
        score(a.scale, a.items, Path(a.cache))


if __name__ == '__main__':
    main()
