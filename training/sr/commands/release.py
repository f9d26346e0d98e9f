"""Release a run: export its best checkpoint to ONNX, evaluate, time it, write the model card.

  nice -n 19 python -m sr release x2_fast --id ours-fast-x2 [--jpeg 75] [--compare x2_fast]

Writes exports/<id>.onnx (+ .json sidecar), runs/<name>/release.json and
../docs/model-cards/<id>.md. --jpeg Q adds the photo protocol (LR saved as JPEG quality Q);
--compare NAME evaluates that run's exported model on the same protocols for the table.
"""
import argparse
import json
import os
import sys
import time
from pathlib import Path

import torch

from sr.commands.bench import bench_many
from sr.commands.engine_quality import harness
from sr.commands.export import export
from sr.manifest import training_photos
from sr.models import PlainSR, build
from sr.paths import TRAINING

HERE = TRAINING
CARDS = HERE.parent / 'docs' / 'model-cards'
# the engine's converted UpscalerJS networks scored beside ours (clean protocol), when models/ holds them; at x3,
# where the tiers ran all three converted networks before ours, thick is scored too (about a minute more)
CONVERTED = ('esrgan-slim', 'esrgan-medium')
CONVERTED_X3 = CONVERTED + ('esrgan-thick',)
PLAIN_TEXT = ('plain 3x3 conv stack on the LR grid: conv 3->{c}, {b} x conv {c}->{c}, conv {c}->3*s*s, ReLU between, '
              '+ nearest-upsampling residual, pixel shuffle (ONNX DepthToSpace); trained with '
              're-parameterised 3x3+1x1+identity branches folded into single 3x3 convs for export')


def arch_text(arch: str) -> str:
    """The card's description of a PlainSR architecture, from its entry in sr/models.py."""
    net = build(arch, 1)
    return PLAIN_TEXT.format(c=net.channels, b=net.body) if isinstance(net, PlainSR) else arch


# published rows printed in the cards (bench/engine/published.ts holds the numbers)
CARD_PUBLISHED = ('bicubic', 'FSRCNN', 'VDSR', 'CARN-M', 'IMDN', 'EDSR')


def warm_start(cfg):
    """(path, how) of a run's warm start: --init copies matching weights, --grow-from grows a smaller network."""
    if cfg.get('init'):
        return cfg['init'], 'warm-started from'
    if cfg.get('grow_from'):
        return cfg['grow_from'], 'grown (same function, sr/grow.py) from'
    return None, None


def lineage(cfg, depth=0):
    """Warm-start chain of a run: [(path, how, iteration, minutes)], following each checkpoint's own warm start."""
    init, how = warm_start(cfg)
    if not init or depth > 5:
        return []
    path = Path(init) if Path(init).is_absolute() else HERE / init
    # Paths a GPU run recorded (training/README.md "On a lent GPU"): the machine's /tmp/gpu_plan/<run>/best.pt is
    # the same file as the fetched runs/<run>/best.pt, and a carried packs/grow/<run>.pt a copy of runs/<run>/best.pt.
    if path.parent.name == 'grow':
        local = HERE / 'runs' / path.stem / 'best.pt'
    else:
        local = HERE / 'runs' / path.parent.name / path.name
    if not path.exists() and local.exists():
        path = local
    if not path.exists():
        return [(str(init), how, None, None)]
    ck = torch.load(path, map_location='cpu', weights_only=False)
    return [(str(init), how, ck.get('iteration'), round(ck.get('train_seconds', 0) / 60, 1))] + \
        lineage(ck['meta']['config'], depth + 1)


DEGRADATIONS = {  # the card's words for sr/degrade.py's pipelines
    'bicubic': 'MATLAB bicubic imresize, antialiased, rounded to uint8',
    'photo': 'blur sigma 0.2-1.2 (p 0.5) -> MATLAB bicubic -> Gaussian noise sigma 0-4 (p 0.5) -> JPEG q40-95 (p 0.9)',
    'real': 'a quarter clean MATLAB bicubic, the rest sr/degrade.py real_lr: Gaussian blur (p 0.4), one of bicubic / '
            'bilinear / area / Lanczos, sensor noise (p 0.5), JPEG q30-100 with 4:2:0, a second save (p 0.3)',
}


def training_data(c, selected: bool = True) -> str:
    """The card's `Training data:` line for a run's options (meta.config): its sets, pyramid and flat-crop thinning.
    selected: the shipped checkpoint is the run's best on its held-out images (`sr release --checkpoint best`); with
    `--checkpoint last` they only watched the run."""
    held_out_for = 'checkpoint selection' if selected else 'watching the run (the shipped checkpoint is its last)'
    sets = c['sets'].split(',')
    if sets == ['licensed']:
        text = (f"the licensed photos of `training/data/licensed-photos.tsv`, split `train`: {training_photos()}, "
                f'commercial use allowed (docs/dataset-licences.md, attributions in NOTICE); split `holdout` for '
                f'{held_out_for}; no research set (never T91 / BSD200 / Set5 / Set14 / BSD100).')
    elif sets == ['T91', 'BSD200']:
        text = (f'T91 (91) + BSD200 (199, without the 8 last by name, held out for {held_out_for}; research sets, '
                'not licensed for commercial use: docs/dataset-licences.md); never Set5 / Set14 / BSD100.')
    else:
        raise SystemExit(f"release: no Training data line for --sets {c['sets']} (sr/commands/release.py)")
    scales = str(c.get('hr_scales', '1'))
    if scales != '1':
        text += f' Every image at {scales.replace(",", ", ")} of its size (`--hr-scales`, sr/data.py).'
    if c.get('flat_below'):
        text += (f" Crops flatter than {c['flat_below']} luma levels per pixel kept with probability "
                 f"{c['flat_keep']} (`--flat-below`, `--flat-keep`).")
    return text


VAL_WORDS = {'BSD200': '8 held-out BSD200 images', 'licensed-holdout': "the licensed photos' holdout split"}


def sampling_options(c) -> str:
    """sr train's options for what a run trained on, where they are not the defaults (configs saved before an option
    existed lack its key)."""
    out = f" --sets {c['sets']}" if c.get('sets', 'T91,BSD200') != 'T91,BSD200' else ''
    if str(c.get('hr_scales', '1')) != '1':
        out += f" --hr-scales {c['hr_scales']}"
    if c.get('flat_below'):
        out += f" --flat-below {c['flat_below']} --flat-keep {c['flat_keep']}"
    for key in ('screen', 'border'):
        if c.get(key):
            out += f' --{key} {c[key]}'
    return out


def table(rows):
    out = ['| model | protocol | Set5 PSNR / SSIM | Set14 PSNR / SSIM | BSD100 PSNR / SSIM |', '|---|---|---|---|---|']
    for label, proto, res in rows:
        cells = [f"{res[s]['psnr']:.2f} / {res[s]['ssim']:.4f}" if s in res else '-' for s in ('Set5', 'Set14', 'BSD100')]
        out.append(f'| {label} | {proto} | ' + ' | '.join(cells) + ' |')
    return '\n'.join(out)


def precision_history(c):
    """Which iterations of the run trained in float32 and which under bfloat16 autocast (train.py --bf16-until)."""
    start, until = c.get('bf16_from', 0), c.get('bf16_until', 0)
    if not until:
        return 'float32 throughout'
    text = f'float32 for iterations 0-{start - 1}, then ' if start else ''
    text += (f'bfloat16 autocast (`--bf16-until`: float32 weights, Adam state and L1 loss) for iterations '
             f'{start}-{min(until, c["iters"]) - 1}')
    if until < c['iters']:
        text += f', float32 from iteration {until} (the low-learning-rate tail)'
    if start:
        text += f'; switched to mixed precision when resumed at iteration {start} (`--resume --bf16-until {until}`)'
    return text


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('name')
    ap.add_argument('--id', required=True)
    ap.add_argument('--jpeg', type=int, default=0)
    ap.add_argument('--compare', help='another run name (already released) to evaluate beside')
    ap.add_argument('--checkpoint', choices=['best', 'last'], default='best',
                    help="best.pt (best held-out PSNR, the default) or last.pt (the end of the schedule, no selection: "
                         "for held-out sets too small to rank checkpoints, e.g. the licensed photos' four)")
    ap.add_argument('--threads', type=int, default=1)
    ap.add_argument('--ensemble', metavar='ID', help="also score the network with the engine's eight-way self-ensemble, "
                    'as the registry entry ID (same ONNX file, selfEnsemble: true)')
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    run = HERE / 'runs' / a.name
    ck_file = f'{a.checkpoint}.pt'
    ck = torch.load(run / ck_file, map_location='cpu', weights_only=False)
    meta, scale = ck['meta'], ck['meta']['scale']
    onnx_path = HERE / 'exports' / f'{a.id}.onnx'
    info = export(str(run / ck_file), str(onnx_path))
    protos = [('bicubic', 0)] + ([(f'bicubic + JPEG q{a.jpeg}', a.jpeg)] if a.jpeg else [])
    models = [(str(onnx_path), a.id)]
    labels = {'bicubic': 'bicubic interpolation', a.id: a.id}
    if a.ensemble:
        models.append((str(onnx_path), a.ensemble, 'ensemble'))
        labels[a.ensemble] = a.ensemble
    if a.compare:
        other = json.loads((HERE / 'runs' / a.compare / 'release.json').read_text())
        models.insert(0, (str(HERE / 'exports' / f"{other['id']}.onnx"), other['id']))
        labels[other['id']] = f"{other['id']} ({other['run']} it {other['best_iteration']})"
    converted = [(str(p), p.name.replace(f'-x{scale}.onnx', '')) for p in
                 (HERE.parent / 'models' / f'{n}-x{scale}.onnx' for n in (CONVERTED_X3 if scale == 3 else CONVERTED))
                 if p.exists()]
    labels.update({n: f'{n} (engine, converted UpscalerJS)' for _, n in converted})
    rows, checks = [], []
    t0 = time.time()
    for pname, q in protos:
        h = harness(models + ([] if q else converted), scale, q)
        checks += h['check']
        rows += [(labels[name], pname, h['rows'][name]) for name in h['rows']]  # bicubic first, then --model order
        if not q:
            rows += [(f'{name} (published)', 'as published', h['published'][name])
                     for name in CARD_PUBLISHED if name in h['published']]
    eval_min = (time.time() - t0) / 60
    refs = [str(p) for p in (HERE.parent / 'models' / f'esrgan-slim-x{scale}.onnx',) if p.exists()]
    speed = bench_many([str(onnx_path)] + refs, 128, 2, 5)
    metrics = [json.loads(line) for line in (run / 'metrics.jsonl').read_text().splitlines()]
    rel = {'id': a.id, 'run': a.name, 'onnx': f'training/exports/{a.id}.onnx', 'info': info, 'rows': rows,
           'speed': speed, 'harness_check': checks, 'checkpoint': ck_file, 'best_iteration': ck['iteration'], 'best_train_minutes': round(ck['train_seconds'] / 60, 1),
           'time': time.strftime('%Y-%m-%dT%H:%M:%S')}
    if a.checkpoint != 'best':  # the recipe's command (sr/recipe.py), which otherwise assumes best.pt
        rel['make'] = f'python -m sr release {a.name} --id {a.id} --checkpoint {a.checkpoint}'
    (run / 'release.json').write_text(json.dumps(rel, indent=1) + '\n')
    c = meta['config']
    chain = lineage(c)
    known = sum(m for _, _, _, m in chain if m)
    chain_text = ''.join(f"\n  - {how} `{p}`" + (f" (iteration {i}, {m} min)" if i is not None else ' (file not kept)')
                         for p, how, i, m in chain)
    cmd = (f"nice -n 19 training/.venv/bin/python -m sr train --name {a.name} --scale {scale} --arch {c['arch']} "
           f"--degradation {c['degradation']} --iters {c['iters']} --batch {c['batch']} --patch {c['patch']} "
           f"--lr {c['lr']} --seed {c['seed']} --threads {c['threads']}" + (f" --init {c['init']}" if c.get('init') else '')
           + (f" --grow-from {c['grow_from']}" if c.get('grow_from') else '')
           + (f" --bf16-until {c['bf16_until']}" if c.get('bf16_until') and not c.get('bf16_from') else '')
           + sampling_options(c))
    on_gpu = c.get('device') == 'cuda'
    if on_gpu:  # through gpu_train.sh / gpu_plan.sh on a lent machine (training/README.md "On a lent GPU")
        cmd = cmd.replace('nice -n 19 training/.venv/bin/python -m sr train', 'bash training/scripts/gpu_train.sh')
        cmd = cmd.replace(f" --threads {c['threads']}", '')
        if c.get('fit_minutes'):
            cmd += f" --fit-minutes {c['fit_minutes']} --fit-probe {c.get('fit_probe', 1000)}"
        machine = run / 'gpu_machine.txt'  # gpu_plan.sh's machine.txt (gpu_fetch.sh)
        lines = machine.read_text().splitlines() if machine.exists() else []
        gpu = next((ln.split(',')[0] for ln in lines if 'NVIDIA' in ln), 'a GPU')
        cpu = next((ln.split(':', 1)[1].strip() for ln in lines if ln.startswith('Model name')), '')
    precision = precision_history(c)
    thread_counts = sorted({m['threads'] for m in metrics if 'threads' in m} | {c['threads']})
    threads = '/'.join(str(t) for t in thread_counts) + ' thread(s)' + (
        ' in different resumed parts' if len(thread_counts) > 1 else '')
    hist = '\n'.join(f"| {m['iteration']} | {m['train_minutes']} | {m['val_psnr']} | {m['set5_psnr'] if m['set5_psnr'] is not None else '-'} |"
                     for m in metrics)
    finished = metrics[-1]['iteration'] >= c['iters']
    status = ('**Status: finished run** -- the run reached the end of its learning-rate schedule; the checkpoint below is '
              + ('its best on the held-out images.' if a.checkpoint == 'best' else
                 'its last (no selection: the held-out images are too few to rank its checkpoints).') if finished else
              '**Status: training in progress** -- these numbers are for the checkpoint named below, not a finished run.')
    load = ' '.join(f'{x:.1f}' for x in os.getloadavg())
    ensemble_text = (f"`{a.ensemble}` is the engine's registry entry that runs this same file with `selfEnsemble: true`: each "
                     'tile goes through the network eight times, rotated and mirrored, and the eight outputs turned back are '
                     'averaged (libs/engine/src/inference/dihedral.ts; EDSR+). Eight times the CPU of one pass.\n\n'
                     if a.ensemble else '')
    if on_gpu:
        train_where = (f"on a lent {gpu} ({cpu}, {c.get('workers', 0)} batch-making processes, images from the pack "
                       f"`--data`), beside the other runs of its device-tool call")
        wall_text = ('Wall time on that machine; the GPU and its CPU cores were shared with the other runs of the same '
                     'gpu_plan.sh call (training/README.md "On a lent GPU"). Paths under /tmp/gpu_plan are that '
                     "machine's: the runs behind this network are in its recipe (training/recipes/).")
        fitted = f", fitted by `--fit-minutes` to {c['iters']} iterations" if c.get('fit_minutes') else ''
        resume_text = f' (through the device tool, training/README.md "On a lent GPU"{fitted})'
    else:
        train_where = f'CPU ({threads}, nice 19, shared 2-core machine)'
        wall_text = (f"Wall time on a shared machine where the\n  run's process ({threads}) got between ~25% and ~100% of "
                     "its threads' cores (nice 19 beside other work; a pause with\n  SIGSTOP while benchmarks timed the "
                     'machine counts as training time).')
        resume_text = f' (resume: `python -m sr train --name {a.name} --resume`)'
    card = f"""# {a.id}

Generated by `python -m sr release` (training/) on {rel['time']} from the run `{a.name}`, whose `{ck_file}` is kept as
`training/shipped/{a.name}/{ck_file}` by `python -m sr recipe ship {a.id}` (the Files section at the end).
{status}

- File: `{rel['onnx']}` (+ `.json` sidecar). ONNX opset {info['opset']}, input `input` N x 3 x H x W float32 RGB
  0..255, output `output` N x 3 x {scale}H x {scale}W float32 RGB clamped to 0..255, H and W dynamic.
- Scale x{scale}. Receptive radius (halo for tiling): **{info['receptive_radius_lr']} LR pixels**.
- Architecture `{meta['arch']}`: {arch_text(meta['arch'])}.
- Parameters (exported graph): {info['params']:,}; training-time (with 1x1 branches): {meta['params_train']:,}.
- Training data: {training_data(c, selected=a.checkpoint == 'best')}
  Random {c['patch']}x{c['patch']} LR patches, flips, 90-degree rotations.
- Degradation: `{c['degradation']}` ({DEGRADATIONS[c['degradation']]}), made on the fly.
- Training: L1 loss, Adam, one-cycle cosine LR (max {c['lr']}) over {c['iters']} iterations of batch {c['batch']}, seed {c['seed']}, {train_where}.
  Precision: {precision}.
- Checkpoint: iteration {ck['iteration']} after {rel['best_train_minutes']} min of training wall time in this run (of {c['iters']} planned iterations);
  with its warm starts {round(rel['best_train_minutes'] + known, 1)} min in all. {wall_text}{chain_text}
- Command: `{cmd}`{resume_text}.

## Quality (engine's quality harness: Y channel, shave = scale, MATLAB bicubic LR)

Produced by `node bench/engine/run.js quality` (bench/engine/quality.ts: the engine's MATLAB-exact bicubic and
Y-PSNR/SSIM, the exported ONNX file on onnxruntime-node), published rows as printed in the papers
(bench/engine/published.ts). Harness check: its bicubic row is within
{max(abs(x['ours'] - x['published']) for x in checks):.3f} dB of the published one on all three sets.

{table(rows)}

{ensemble_text}Set14 holds one grayscale image ('bridge'): the harness upscales it as one band, as the engine does, and scores
that band; sr evaluate scores the MATLAB luma of an RGB copy, which puts its Set14 column up to ~0.1 dB
apart from this one.

## Speed (onnxruntime {__import__('onnxruntime').__version__}, 2 threads, one 128x128 LR tile, runs interleaved)

Measured at release time (load average {load}, so other work shared the 2 cores): the ratio to the engine's
esrgan-slim in the same call is the meaningful part. Idle-machine figures for every network are in
docs/benchmarks.md ("Speed", `node bench/engine/run.js speed`).

""" + '\n'.join(f"- `{Path(s['model']).name}`: median {s['ms_per_out_mp_median']} ms per output MP (best {s['ms_per_out_mp_best']})"
                  for s in speed) + f"""

## Training history (`sr train`'s quick checks: val = {VAL_WORDS[c.get('val', 'BSD200')]}; Set5 may differ from the table by ~0.03 dB)

| iteration | train minutes | val PSNR | Set5 PSNR |
|---|---|---|---|
{hist}
"""
    CARDS.mkdir(parents=True, exist_ok=True)
    (CARDS / f'{a.id}.md').write_text(card)
    print(card)
    print(f'evaluation took {eval_min:.1f} min')


if __name__ == '__main__':
    main()
