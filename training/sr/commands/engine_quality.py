"""Model-card tables from the engine's quality harness (bench/engine/quality.ts), not from a Python copy of it.

The harness runs in Node with the engine's own MATLAB-exact bicubic, Y-PSNR/SSIM and onnxruntime-node, and
prints the published rows beside; `--json` hands the same rows back here. Needs the built workspace
(`npm run build` at the repository root).
"""
import json
import subprocess
import tempfile
from pathlib import Path
from sr.paths import TRAINING

ROOT = TRAINING.parent
SETS = ('Set5', 'Set14', 'BSD100')


def harness(models, scale: int, jpeg: int = 0, qdq_reference: bool = False):
    """models: [(onnx path, name) or (onnx path, name, 'ensemble' | 'ensemble=T,T')] -> {'rows': {name: {set: {psnr, ssim, images}}}, 'published': {...}, 'check': [...]}.

    'ensemble' runs the network with the engine's eight-way self-ensemble, 'ensemble=0,6' with those transforms only. 'bicubic' is always among the rows. Raises if the harness fails or its bicubic row is off the published one.
    `qdq_reference`: the harness's --qdq-reference (int8 files run unfused, as written: for a CPU without an int8 dot product).
    """
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / 'quality.json'
        cmd = ['node', 'bench/engine/run.js', 'quality', '--sets', ','.join(SETS), '--scales', str(scale),
               '--networks', '', '--json', str(out)]
        for path, name, *mode in models:
            cmd += ['--model', ':'.join([str(Path(path).resolve()), str(scale), name, *mode])]
        if jpeg:
            cmd += ['--jpeg', str(jpeg)]
        if qdq_reference:
            cmd.append('--qdq-reference')
        done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
        if done.returncode != 0 or not out.exists():
            raise RuntimeError(f'quality harness failed ({done.returncode}): {done.stderr[-2000:]}')
        data = json.loads(out.read_text())
    rows, published = {}, {}
    for r in data['rows']:
        rows.setdefault(r['name'], {})[r['set']] = {'psnr': r['psnr'], 'ssim': r['ssim'], 'images': r['n']}
    for p in data['published']:
        published.setdefault(p['name'], {})[p['set']] = {'psnr': p['psnr'], 'ssim': p['ssim']}
    return {'rows': rows, 'published': published, 'check': data['harnessCheck'], 'machine': data['machine']}
