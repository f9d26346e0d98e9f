"""An int8 network against its float32 parent: export, Set5/Set14/BSD100 PSNR of both, speed of both.

  python -m sr int8-report --id ours-fast-x2 --qat runs/x2_fast2_qat/best.pt [--jpeg 75] [--ship]

1. export_int8.py's export of the QAT checkpoint to runs/<qat run>/<id>-int8.onnx (+ .json);
2. evaluate.py's protocol (evaluate(), onnx_upscaler()) on exports/<id>.onnx and the int8 file, bicubic
   LR (plus `--jpeg Q`, the photo protocol, if given: the photo networks are judged on both); on a CPU without an
   int8 dot product (bench.int8_dot_product) the int8 file runs unfused, as the QDQ graph is written, since the
   AVX2 QLinearConv kernel there saturates 16-bit sums and would score a file the engine never serves on it;
3. bench_onnx.py's interleaved timing of the two files in one call, with the CPU model (lscpu);
4. the bar: int8 within --max-loss (0.03) dB of float32 on every set and protocol, or it
   is not shipped. `--ship` copies a passing file to exports/<id>-int8.onnx (+ .json, with the
   measured numbers). `--ship --ensemble-only` ships a file for its self-ensembled registry entry alone
   (<id>-int8-ensemble, as `best` runs it), whether or not one pass passes: the sidecar says so
   ("serves": "ensemble"), and int8_card.py --ensemble then holds the ensemble to the bar before it
   writes the card (the eight averaged passes halve the quantization loss: results/int8.md).
   The report goes to runs/<qat run>/int8_report.json and stdout.
`--pause-pid PID` stops that process (SIGSTOP; e.g. our own background training) during the timing.
"""
import argparse
import json
import os
import shutil
import signal
import sys
import time
from pathlib import Path

from sr.commands.bench import bench_many, cpu_info, int8_dot_product
from sr.commands.evaluate import evaluate, onnx_upscaler
from sr.commands.export_int8 import export
from sr.images import TEST_SETS
from sr.paths import TRAINING

HERE = TRAINING
BAR_DB = 0.03  # int8 within this many dB of float32 on every set and protocol (int8_card.py too)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--id', required=True, help='shipped network id, e.g. ours-fast-x2')
    ap.add_argument('--qat', required=True, help='QAT checkpoint (runs/<name>/best.pt)')
    ap.add_argument('--float', dest='float_onnx', help='float32 file (default exports/<id>.onnx)')
    ap.add_argument('--jpeg', type=int, default=0, help='also evaluate with the LR saved as JPEG at this quality')
    ap.add_argument('--max-loss', type=float, default=BAR_DB)
    ap.add_argument('--threads', type=int, default=2)
    ap.add_argument('--bench-size', type=int, default=256)
    ap.add_argument('--bench-runs', type=int, default=9)
    ap.add_argument('--pause-pid', type=int, default=0)
    ap.add_argument('--no-bench', action='store_true', help='quality only (e.g. beside other work)')
    ap.add_argument('--float-tail', action='store_true',
                    help='export the tail conv in float32 (export_int8.py --float-tail): for self-ensembled entries')
    ap.add_argument('--ship', action='store_true')
    ap.add_argument('--ensemble-only', action='store_true',
                    help='with --ship: the file serves only the self-ensembled entry (int8_card.py --ensemble judges it)')
    a = ap.parse_args()

    qat = Path(a.qat)
    float_onnx = a.float_onnx or str(HERE / 'exports' / f'{a.id}.onnx')
    int8_onnx = str(qat.parent / f'{a.id}-int8.onnx')
    info = export(str(qat), int8_onnx, float_tail=a.float_tail)
    scale = info['scale']
    # where the served kernels would saturate, the int8 file's own arithmetic, run unfused (evaluate.onnx_upscaler)
    qdq_reference = not int8_dot_product()
    execution = ('QDQ reference (graph optimizations off: this CPU has no int8 dot product)' if qdq_reference
                 else 'fused QLinearConv (int8 dot product)')
    protocols = [0] + ([a.jpeg] if a.jpeg else [])
    quality, deltas = {}, {}
    for jpeg in protocols:
        key = f'jpeg{jpeg}' if jpeg else 'bicubic'
        t0 = time.time()
        f = evaluate(onnx_upscaler(float_onnx, a.threads), scale, TEST_SETS, jpeg, with_ssim=False)
        q = evaluate(onnx_upscaler(int8_onnx, a.threads, qdq_reference), scale, TEST_SETS, jpeg, with_ssim=False)
        quality[key] = {'float32': f, 'int8': q, 'seconds': round(time.time() - t0)}
        deltas[key] = {s: round(q[s]['psnr'] - f[s]['psnr'], 3) for s in TEST_SETS}
    passed = all(d >= -a.max_loss for dd in deltas.values() for d in dd.values())

    cpu = cpu_info()
    speed, ratio = [], None
    if not a.no_bench:
        if a.pause_pid:
            os.kill(a.pause_pid, signal.SIGSTOP)
        try:
            speed = bench_many([float_onnx, int8_onnx], a.bench_size, a.threads, a.bench_runs)
        finally:
            if a.pause_pid:
                os.kill(a.pause_pid, signal.SIGCONT)
        ratio = round(speed[1]['ms_per_out_mp_median'] / speed[0]['ms_per_out_mp_median'], 3)
    report = {'id': a.id, 'qat_checkpoint': str(qat), 'float32': float_onnx, 'int8': int8_onnx,
              'scale': scale, 'quality': quality, 'delta_db': deltas, 'max_loss_db': a.max_loss,
              'passes': passed, 'int8_execution': execution, 'cpu': cpu, 'load_average': os.getloadavg(), 'speed': speed,
              'int8_over_float32_time': ratio, 'time': time.strftime('%Y-%m-%dT%H:%M:%S')}
    (qat.parent / 'int8_report.json').write_text(json.dumps(report, indent=1) + '\n')

    print(f'{a.id}: int8 ({qat}) vs float32 ({float_onnx}), x{scale}; int8 quality from {execution}')
    print('| protocol | set | float32 PSNR | int8 PSNR | delta |\n|---|---|---|---|---|')
    for key in quality:
        for s in TEST_SETS:
            print(f"| {key} | {s} | {quality[key]['float32'][s]['psnr']:.3f} | {quality[key]['int8'][s]['psnr']:.3f} "
                  f"| {deltas[key][s]:+.3f} |")
    print(cpu, '| load average', ' '.join(f'{x:.2f}' for x in os.getloadavg()))
    for r in speed:
        print(r)
    print(f'int8 / float32 time (medians): {ratio}; bar ({a.max_loss} dB on every set): '
          f'{"PASS" if passed else "FAIL"}')
    if a.ship:
        if not passed and not a.ensemble_only:
            sys.exit(f'{a.id}: not shipped, int8 loses more than {a.max_loss} dB: {deltas}')
        dst = HERE / 'exports' / f'{a.id}-int8.onnx'
        shutil.copyfile(int8_onnx, dst)
        side = json.loads(Path(int8_onnx + '.json').read_text())
        side.update({'file': dst.name, 'float32_parent_file': Path(float_onnx).name, 'quality': quality,
                     'delta_db': deltas, 'int8_execution': execution, 'speed': speed, 'cpu': cpu,
                     'serves': 'ensemble' if a.ensemble_only else 'one pass and ensemble'})
        Path(str(dst) + '.json').write_text(json.dumps(side, indent=1) + '\n')
        print('shipped', dst)


if __name__ == '__main__':
    main()
