"""Speed of exported ONNX models with onnxruntime: ms per output megapixel.

  python -m sr bench exports/ours-fast-x2.onnx ../models/esrgan-slim-x2.onnx --size 256 --threads 2
Input: one size x size LR tile (random 0..255). Runs of the given models are interleaved so that a
shared, loaded machine slows them alike: compare models by the ratio within one call (DESIGN 5),
not by absolute numbers taken at different times.
"""
import argparse
import platform
import statistics
import subprocess
import time
from pathlib import Path

import numpy as np
import onnxruntime as ort


def _session(path: str, threads: int):
    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    so.inter_op_num_threads = 1
    return ort.InferenceSession(path, so, providers=['CPUExecutionProvider'])


def bench_many(paths, size: int = 256, threads: int = 2, runs: int = 7) -> list:
    sessions = [_session(p, threads) for p in paths]
    x = (np.random.default_rng(0).random((1, 3, size, size)) * 255).astype(np.float32)
    mps = []
    for s in sessions:  # warm-up, output size
        y = s.run(None, {s.get_inputs()[0].name: x})[0]
        mps.append(y.shape[2] * y.shape[3] / 1e6)
    times = [[] for _ in paths]
    for _ in range(runs):
        for i, s in enumerate(sessions):
            t = time.perf_counter()
            s.run(None, {s.get_inputs()[0].name: x})
            times[i].append(time.perf_counter() - t)
    return [{'model': p, 'lr': f'{size}x{size}', 'threads': threads, 'out_mp': round(mp, 3),
             'ms_per_out_mp_median': round(statistics.median(t) * 1000 / mp, 1),
             'ms_per_out_mp_best': round(min(t) * 1000 / mp, 1)} for p, mp, t in zip(paths, mps, times)]


def bench(path: str, size: int = 256, threads: int = 2, runs: int = 7) -> dict:
    return bench_many([path], size, threads, runs)[0]


# x86 flags of an int8 dot product with 32-bit sums (libs/engine/src/registry/precision.ts, the engine's list): without
# one, onnxruntime's fused QLinearConv runs AVX2's vpmaddubsw, whose 16-bit sums saturate, and an int8 file scores
# below what it computes where it is served
INT8_DOT_PRODUCT_FLAGS = ('avx512_vnni', 'avx_vnni', 'amx_int8')


def int8_dot_product(cpuinfo: str | None = None) -> bool:
    """Whether every core of /proc/cpuinfo (or `cpuinfo`, its text) lists an int8 dot-product instruction."""
    if cpuinfo is None:
        try:
            cpuinfo = Path('/proc/cpuinfo').read_text()
        except OSError:
            return False
    lines = [ln for ln in cpuinfo.splitlines() if ln.startswith('flags')]
    return bool(lines) and all(set(ln.split(':', 1)[1].split()) & set(INT8_DOT_PRODUCT_FLAGS) for ln in lines)


def cpu_info() -> str:
    """CPU model, cores and int8/bf16 features (lscpu), onnxruntime version: printed with every benchmark."""
    try:
        out = subprocess.run(['lscpu'], capture_output=True, text=True, check=True).stdout
        f = dict(line.split(':', 1) for line in out.splitlines() if ':' in line)
        f = {k.strip(): v.strip() for k, v in f.items()}
        flags = set(f.get('Flags', '').split())
        feats = [x for x in ('avx2', 'avx512f', 'avx512_vnni', 'avx_vnni', 'avx512_bf16', 'amx_int8', 'amx_bf16')
                 if x in flags]
        return (f"CPU: {f.get('Model name', '?')} ({f.get('CPU(s)', '?')} CPUs, {f.get('Thread(s) per core', '?')} "
                f"thread(s)/core; {' '.join(feats)}) | onnxruntime {ort.__version__} | {platform.machine()}")
    except (OSError, subprocess.CalledProcessError):
        return f'CPU: {platform.processor() or platform.machine()} | onnxruntime {ort.__version__}'


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('models', nargs='+')
    ap.add_argument('--size', type=int, default=256)
    ap.add_argument('--threads', type=int, default=2)
    ap.add_argument('--runs', type=int, default=7)
    a = ap.parse_args()
    print(cpu_info())
    for r in bench_many(a.models, a.size, a.threads, a.runs):
        print(r)


if __name__ == '__main__':
    main()
