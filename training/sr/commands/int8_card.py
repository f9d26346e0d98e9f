"""The int8 section of a model card: a shipped int8 network beside its float32 parent, from the engine's harness.

  nice -n 10 python -m sr int8-card --id ours-fast-x2 [--jpeg 75] [--ensemble]

Reads exports/<id>-int8.onnx and its sidecar (written by int8_report.py --ship, or the PTQ copy), scores
exports/<id>.onnx and the int8 file with the engine's quality harness (engine_quality.py: PSNR/SSIM on Y,
Set5/Set14/BSD100; with --jpeg Q also the photo protocol; with --ensemble also both files self-ensembled
under that protocol, as the best tier runs them), times both in one interleaved call (bench_onnx.py), and
writes the section between the INT8 markers of docs/model-cards/<id>.md (replacing an older one). The rows are
labelled with the engine's registry ids (<id>-int8, <id>-int8-ensemble) so libs/engine/test reads them.
A file shipped for the ensemble alone (int8_report.py --ship --ensemble-only: sidecar "serves": "ensemble") needs
--ensemble; the card is written only if the self-ensembled rows are within the bar, and says that one pass is not
served.
"""
import argparse
import json
import os
import sys
import time
from pathlib import Path

import torch

from sr.commands.bench import bench_many, cpu_info, int8_dot_product
from sr.commands.engine_quality import SETS, harness
from sr.commands.int8_report import BAR_DB
from sr.commands.qat import OLD_SAMPLING
from sr.commands.release import training_data
from sr.paths import TRAINING

HERE = TRAINING
CARDS = HERE.parent / 'docs' / 'model-cards'
BEGIN, END = '<!-- INT8 BEGIN (sr int8-card) -->', '<!-- INT8 END -->'


QDQ_REFERENCE_NOTE = '''
Measured on a CPU without an int8 dot product: the int8 file ran unfused, as its QDQ graph is written
(DequantizeLinear, float Conv, QuantizeLinear; the harness's `--qdq-reference`): the int8 products summed in float32,
which scores what the engine's fused QLinearConv computes on VNNI cores to about 0.001 dB. The fused AVX2 kernel of
this CPU saturates 16-bit sums, which is why the engine serves the float32 parent here (docs/engine.md, "Precision").
'''


def cell(r):
    return f"{r['psnr']:.3f} / {r['ssim']:.4f}"


def tuning_data(meta: dict) -> str:
    """The card's words for what a QAT run calibrated and fine-tuned on: its parent's sets, drawn as the parent drew
    them (sr qat's parent_sampling; runs saved before it was recorded drew as OLD_SAMPLING)."""
    ps = meta.get('parent_sampling', OLD_SAMPLING)
    return training_data({'sets': meta.get('parent_sets', 'T91,BSD200'), 'flat_below': ps['flat_below'],
                          'flat_keep': ps['flat_keep'], 'hr_scales': ','.join(f'{f:g}' for f in ps['hr_scales'])})


def recipe(ck: dict, ck_path: Path) -> str:
    """The QAT recipe of the checkpoint the int8 file was exported from (`sr qat`'s config), loaded from ck_path."""
    c, meta = ck['meta']['config'], ck['meta']
    calib = (f"activation scales initialised on {c['calib_batches']} batches of {c['batch']} training patches "
             f"({c['patch']}x{c['patch']} LR, {meta.get('parent_sets', 'T91,BSD200')} without the held-out images; "
             'MSE-optimal clip per layer, uint8, zero point 0 after ReLU)')
    if c['iters'] == 0:
        return (f"post-training quantization with our scheme (`python -m sr qat --iters 0`): {calib}; no fine-tuning. "
                f"Float32 parent `{c['parent']}` (iteration {meta['parent_iteration']}).")
    distill = c.get('distill', 0.0)
    return (f"quantization-aware fine-tuning (`python -m sr qat`, sr/quant.py): {calib}; then {c['iters']} iterations of "
            f"batch {c['batch']} through fake quantization (int8 weights per output channel, uint8 activations, "
            f"tail output at 1/255), float32, L1 loss" + (f" ({distill:g} of the target the float32 parent's output)" if distill else '')
            + f", Adam, cosine learning rate {c['lr']:g} -> {c['lr'] / 100:g} (activation scales {c['scale_lr']:g}), seed {c['seed']}. "
            f"Float32 parent `{c['parent']}` (iteration {meta['parent_iteration']}); checkpoint: iteration {ck['iteration']} "
            + (f"(best held-out PSNR of the fake-quantized network, {ck['val_psnr']:.3f} dB; the parent {meta['parent_val']:.3f})."
               if 'val_psnr' in ck else
               f"(the run's last, no selection: held-out PSNR of the fake-quantized network {last_val(ck_path):.3f} dB, "
               f"best {ck['best_val']:.3f}; the parent {meta['parent_val']:.3f})."))


def last_val(ck_path: Path) -> float:
    """The held-out PSNR metrics.jsonl records for the run's last checkpoint (last.pt does not carry it)."""
    rows = [json.loads(line) for line in (ck_path.parent / 'metrics.jsonl').read_text().splitlines()]
    return rows[-1]['val_psnr']


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--id', required=True, help='the float32 network id, e.g. ours-fast-x2')
    ap.add_argument('--jpeg', type=int, default=0)
    ap.add_argument('--ensemble', action='store_true', help='also score both files self-ensembled (with --jpeg: under that protocol)')
    a = ap.parse_args()
    f32 = HERE / 'exports' / f'{a.id}.onnx'
    i8 = HERE / 'exports' / f'{a.id}-int8.onnx'
    side = json.loads(Path(str(i8) + '.json').read_text())
    scale = side['scale']
    i8_id, ens, i8_ens = f'{a.id}-int8', f'{a.id}-ensemble', f'{a.id}-int8-ensemble'
    ensemble_only = side.get('serves') == 'ensemble'
    if ensemble_only and not a.ensemble:
        sys.exit(f'{i8.name} serves the self-ensembled entry only: run with --ensemble')
    protos = [('bicubic', 0)] + ([(f'bicubic + JPEG q{a.jpeg}', a.jpeg)] if a.jpeg else [])
    qdq_reference = not int8_dot_product()  # as sr int8-report: the file's own arithmetic where the fused kernel saturates
    rows, checks = [], []
    t0 = time.time()
    for pname, q in protos:
        models = [(str(f32), a.id), (str(i8), i8_id)]
        if a.ensemble and (q or not a.jpeg):
            models += [(str(f32), ens, 'ensemble'), (str(i8), i8_ens, 'ensemble')]
        h = harness(models, scale, q, qdq_reference)
        checks += h['check']
        for _, name, *_mode in models:
            rows.append((name, pname, h['rows'][name]))
    minutes = (time.time() - t0) / 60
    speed = bench_many([str(f32), str(i8)], 256, 2, 9)
    ratio = speed[1]['ms_per_out_mp_median'] / speed[0]['ms_per_out_mp_median']
    worst = {}
    for name, pname, res in rows:
        if name.endswith('-int8') or name.endswith('-int8-ensemble'):
            parent = next(r for n, p, r in rows if p == pname and n == name.replace('-int8', ''))
            worst[(name, pname)] = min(res[s]['psnr'] - parent[s]['psnr'] for s in SETS)
    over = {k for k, v in worst.items() if v < -BAR_DB}  # (row, protocol) pairs over the bar
    not_served = {k for k in worst if ensemble_only and k[0] == i8_id}
    if over - not_served:
        sys.exit(f'not written: int8 loses more than {BAR_DB} dB where it is served: {sorted(over - not_served)}')
    table = ['| model | protocol | Set5 PSNR / SSIM | Set14 PSNR / SSIM | BSD100 PSNR / SSIM | int8 - float32 (worst set) |',
             '|---|---|---|---|---|---|']
    for name, pname, res in rows:
        delta = f"{worst[(name, pname)]:+.3f} dB" if (name, pname) in worst else 'float32 parent'
        if (name, pname) in not_served:
            delta += ' (over the bar: not served)' if (name, pname) in over else ' (not served)'
        table.append(f"| {name} | {pname} | " + ' | '.join(cell(res[s]) for s in SETS) + f' | {delta} |')
    ck_path = HERE / side['checkpoint'] if 'checkpoint' in side else None
    ck = torch.load(ck_path, map_location='cpu', weights_only=False) if ck_path and ck_path.exists() else None
    load = ' '.join(f'{x:.1f}' for x in os.getloadavg())
    # entries that run this file on a list of passes (a pair: their own section of the card, outside the markers)
    reg = json.loads((HERE / 'exports' / 'registry.json').read_text())
    registry = reg['networks']
    pairs = [k for k, v in registry.items() if Path(v['file']).name == i8.name and isinstance(v.get('selfEnsemble'), list)]
    ens_tiers = [f'`{t}` at x{s}' for t, by_scale in reg['tiers'].items() for s, n in by_scale.items() if n == i8_ens]
    served_text = (f"Served self-ensembled only, as `{i8_ens}` ({', '.join(ens_tiers) or 'in no tier'})"
                   + ''.join(f" and as `{k}` (its passes {registry[k]['selfEnsemble']}: the section below)" for k in pairs)
                   + (': one pass of this file loses more than the bar allows, so' if over & not_served else ';')
                   + f" `{i8_id}` is not in the registry and one pass runs the float32 parent."
                   if ensemble_only else '')
    section = f"""{BEGIN}
## int8 version: `{i8_ens if ensemble_only else i8_id}`

Generated by `sr int8-card` on {time.strftime('%Y-%m-%dT%H:%M:%S')}. The engine runs this file where the CPU
has VNNI (UPSCALE_ENGINE_PRECISION=auto, docs/engine.md "Precision"); `float32` runs the parent above.

- Precision: int8. File `training/exports/{i8.name}` (+ `.json` sidecar): ONNX {side['quantization']};
  onnxruntime fuses it into QLinearConv ({'every convolution but the tail, which runs as a float32 Conv on its int8 weights and uint8 input so self-ensembled passes average unrounded residuals' if side.get('float_tail') else 'every convolution'}) with float32 only at the input, the pixel shuffle and
  the nearest-neighbour residual. Same input, output, scale and receptive radius ({side['receptive_radius_lr']}) as the parent.
- Calibration and fine-tuning data: {tuning_data(ck['meta']) if ck else 'unknown (no QAT checkpoint)'}
- Recipe: {recipe(ck, ck_path) if ck else side.get('checkpoint', 'unknown')}
- Bar: within 0.03 dB of the float32 parent on Set5, Set14 and BSD100 under every protocol the
  network serves, or it is not shipped.{' ' + served_text if served_text else ''}

### Quality, float32 and int8 side by side (engine's quality harness, as above; {minutes:.1f} min)
{QDQ_REFERENCE_NOTE if qdq_reference else ''}
{chr(10).join(table)}

### Speed (onnxruntime {__import__('onnxruntime').__version__}, 2 threads, 256x256 LR, runs interleaved in one call)

{cpu_info()}; load average {load} (other work shared the 2 cores: the ratio is the meaningful part; idle-machine
tables in docs/benchmarks.md).

- `{f32.name}` (float32): median {speed[0]['ms_per_out_mp_median']} ms per output MP (best {speed[0]['ms_per_out_mp_best']})
- `{i8.name}` (int8): median {speed[1]['ms_per_out_mp_median']} ms per output MP (best {speed[1]['ms_per_out_mp_best']})
- int8 / float32 time: **{ratio:.2f}**
{END}
"""
    card_path = CARDS / f'{a.id}.md'
    card = card_path.read_text()
    if BEGIN in card:
        card = card[:card.index(BEGIN)] + section.rstrip('\n') + card[card.index(END) + len(END):]
    else:
        marker = '\n## Training history'
        at = card.index(marker) if marker in card else len(card)
        card = card[:at].rstrip('\n') + '\n\n' + section + card[at:]
    card_path.write_text(card)
    print(section)


if __name__ == '__main__':
    main()
