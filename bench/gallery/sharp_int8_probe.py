"""Does calibration-only int8 keep the `sharp` tier's look? (docs/benchmarks.md "Gallery")

  training/.venv/bin/python bench/gallery/sharp_int8_probe.py <gallery out dir> [--exclude conv,conv...]

Quantizes models/realesrgan-x4plus.onnx with onnxruntime's static quantizer (QDQ, int8 weights per output channel,
uint8 activations per tensor, min/max calibration on 24 random 64x64 crops of the training images in
../shared/datasets), then times both files on one thread (96x96 input) and compares their outputs on the gallery's
inputs (bench/gallery/run.sh; the centre 96x96 of each): PSNR of int8 against float32, largest difference, share
of values within 2 levels, and a side-by-side PNG (float32 left, int8 right) per image in the out dir.
Needs ~3 GB of memory (percentile or entropy calibration of this network needs more than 20 GB: not here).
"""
import argparse
import glob
import time
from pathlib import Path

import numpy as np
import onnxruntime as ort
from onnxruntime.quantization import CalibrationDataReader, CalibrationMethod, QuantFormat, QuantType, quantize_static
from onnxruntime.quantization.shape_inference import quant_pre_process
from PIL import Image

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / 'models' / 'realesrgan-x4plus.onnx'
NO_CROP = np.zeros(4, np.int64)


def crops(n: int = 24, size: int = 64, seed: int = 0) -> list:
    rng = np.random.default_rng(seed)
    files = sorted(glob.glob(str(ROOT.parent / 'shared' / 'datasets' / 'train' / '**' / '*.png'), recursive=True))
    out = []
    for _ in range(n):
        im = np.asarray(Image.open(files[rng.integers(len(files))]).convert('RGB'), dtype=np.float32)
        y, x = rng.integers(0, im.shape[0] - size), rng.integers(0, im.shape[1] - size)
        out.append(np.ascontiguousarray(im[y:y + size, x:x + size].transpose(2, 0, 1)[None]))
    return out


class Reader(CalibrationDataReader):
    def __init__(self):
        self.it = iter([{'input': c, 'crop': NO_CROP} for c in crops()])

    def get_next(self):
        return next(self.it, None)


def session(path: Path) -> ort.InferenceSession:
    o = ort.SessionOptions()
    o.intra_op_num_threads, o.inter_op_num_threads = 1, 1
    return ort.InferenceSession(str(path), o, providers=['CPUExecutionProvider'])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument('out', type=Path)
    ap.add_argument('--exclude', default='', help='conv node names kept in float32')
    a = ap.parse_args()
    pre, q8 = a.out / 'sharp-pre.onnx', a.out / 'sharp-int8.onnx'
    if not pre.exists():
        quant_pre_process(str(SRC), str(pre), skip_symbolic_shape=True)
    t = time.time()
    quantize_static(str(pre), str(q8), Reader(), quant_format=QuantFormat.QDQ, per_channel=True,
                    activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8, calibrate_method=CalibrationMethod.MinMax,
                    nodes_to_exclude=[n for n in a.exclude.split(',') if n], extra_options={'CalibMovingAverage': True})
    print(f'quantized in {time.time() - t:.0f} s')
    f32, i8 = session(SRC), session(q8)
    run = lambda s, x: s.run(None, {'input': x, 'crop': NO_CROP})[0]  # noqa: E731
    x = np.random.default_rng(1).uniform(0, 255, (1, 3, 96, 96)).astype(np.float32)
    for name, s in (('float32', f32), ('int8', i8)):
        run(s, x[:, :, :32, :32])
        t = time.time()
        run(s, x)
        print(f'{name}: {(time.time() - t) * 1000:.0f} ms for 96x96 in, one thread')
    for f in sorted((a.out / 'inputs').iterdir()):
        im = np.asarray(Image.open(f).convert('RGB'), dtype=np.float32)
        y, x0 = (im.shape[0] - 96) // 2, (im.shape[1] - 96) // 2
        inp = np.ascontiguousarray(im[y:y + 96, x0:x0 + 96].transpose(2, 0, 1)[None])
        p, q = (np.clip(np.round(run(s, inp)), 0, 255) for s in (f32, i8))
        psnr = 10 * np.log10(255 ** 2 / np.mean((p - q) ** 2))
        print(f'{f.stem}: int8 vs float32 {psnr:.2f} dB, max |diff| {int(np.abs(p - q).max())}, '
              f'{np.mean(np.abs(p - q) <= 2) * 100:.1f} % within 2 levels')
        Image.fromarray(np.concatenate([p[0], q[0]], 2).transpose(1, 2, 0).astype(np.uint8)).save(a.out / f'sharp-int8-{f.stem}.png')


if __name__ == '__main__':
    main()
