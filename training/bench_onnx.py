"""Speed of an exported ONNX model with onnxruntime: ms per output megapixel (median of runs).

  python bench_onnx.py ../models/ours/fast_x2.onnx --size 256 --threads 2
Input is one size x size LR tile (random 0..255); prints ms per output megapixel.
"""
import argparse
import statistics
import time

import numpy as np
import onnxruntime as ort


def bench(path: str, size: int = 256, threads: int = 2, runs: int = 7) -> dict:
    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    so.inter_op_num_threads = 1
    sess = ort.InferenceSession(path, so, providers=['CPUExecutionProvider'])
    x = (np.random.default_rng(0).random((1, 3, size, size)) * 255).astype(np.float32)
    y = sess.run(['output'], {'input': x})[0]
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        sess.run(['output'], {'input': x})
        times.append(time.perf_counter() - t)
    mp = y.shape[2] * y.shape[3] / 1e6
    med, best = statistics.median(times), min(times)
    return {'model': path, 'lr': f'{size}x{size}', 'out_mp': round(mp, 3),
            'ms_per_out_mp_median': round(med * 1000 / mp, 1), 'ms_per_out_mp_best': round(best * 1000 / mp, 1)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('models', nargs='+')
    ap.add_argument('--size', type=int, default=256)
    ap.add_argument('--threads', type=int, default=2)
    ap.add_argument('--runs', type=int, default=7)
    a = ap.parse_args()
    for m in a.models:
        print(bench(m, a.size, a.threads, a.runs))


if __name__ == '__main__':
    main()
