"""Recipes: how each shipped network was made, one JSON file per network in recipes/<id>.json.

A recipe names the files it ships (exports/<id>.onnx, its int8 file, a blend's file) with their sha256, the
checkpoints they were exported from (kept under shipped/<run>/, also with their sha256), and every run behind them,
root first: the command that started it, rebuilt from the options its checkpoint recorded (`meta.config`: the
options of the run's last invocation, so `--iters` is the final length), its parent and its result. Runs other than
the exported ones are not kept: their folders under runs/ are git-ignored, and the recipe is what remains of them.

`write` (python -m sr recipe write ID) reads the runs, so it works where they are (the machine that trained them);
`check` needs only the recipe and the kept files, and tests/test_recipes.py runs it for every recipe.
"""
import hashlib
import json
import re
from pathlib import Path

import torch

from .paths import EXPORTS, RECIPES, RUNS, SHIPPED, TRAINING

# options a checkpoint's config records that are not command-line options
_INTERNAL = {'bf16_from'}
# config key -> option, where the option's name is not the key's
_OPTION = {'parent': '--from'}


def sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, 'rb') as f:
        for block in iter(lambda: f.read(1 << 20), b''):
            h.update(block)
    return h.hexdigest()


def run_of(ref: str) -> tuple[str, str]:
    """(run, file) of a checkpoint reference as configs and sidecars record it: runs/R/F.pt, shipped/R/F.pt, a
    lent GPU machine's /tmp/gpu_plan/R/F.pt, or a carried packs/grow/R.pt (a copy of runs/R/best.pt)."""
    m = re.search(r'(?:^|/)(?:runs|shipped|gpu_plan)/([\w.-]+)/([\w.-]+\.pt)$', ref)
    if m:
        return m.group(1), m.group(2)
    m = re.search(r'(?:^|/)packs/grow/([\w.-]+)\.pt$', ref)
    if m:
        return m.group(1), 'best.pt'
    raise ValueError(f'not a run checkpoint: {ref}')


def _is_run(ref: str) -> bool:
    try:
        run_of(ref)
        return True
    except ValueError:
        return False


def _checkpoint(run: str, file: str) -> Path:
    for base in (SHIPPED, RUNS):
        if (base / run / file).exists():
            return base / run / file
    raise FileNotFoundError(f'{run}/{file} is in neither shipped/ nor runs/')


def command_line(kind: str, run: str, config: dict) -> str:
    """The command that starts `run` with `config`'s options; parents are named by their run folder."""
    args = [f'python -m sr {kind} --name {run}']
    for key, value in config.items():
        if key in _INTERNAL or value is None or value is False:
            continue
        if key == 'data' and Path(value) == RUNS / 'distill_data':  # sr distill's default, recorded as this machine's path
            continue
        option = _OPTION.get(key, '--' + key.replace('_', '-'))
        if key in ('init', 'grow_from', 'parent') and _is_run(value):
            parent, file = run_of(value)
            value = f'runs/{parent}/{file}'
        args.append(option if value is True else f'{option} {value}')
    return ' '.join(args)


def stage(run: str, file: str) -> dict:
    """One run as a recipe records it, from its checkpoint's meta."""
    ck = torch.load(_checkpoint(run, file), map_location='cpu', weights_only=False)
    meta, config = ck['meta'], dict(ck['meta']['config'])
    kind = 'qat' if meta.get('qat') else 'distill' if meta['arch'].startswith('compact') else 'train'
    parent_ref = config.get('parent') or config.get('grow_from') or config.get('init')
    # a parent outside any run folder (an early hand-made file) ends the chain: the recipe names it as it was
    parent = '/'.join(run_of(parent_ref)) if parent_ref and _is_run(parent_ref) else None
    return {
        'run': run,
        'checkpoint': file,
        'command': command_line(kind, run, config),
        'parent': parent,
        'parent_use': None if not parent_ref else 'qat' if kind == 'qat' else 'grow' if config.get('grow_from') else 'init',
        **({'parent_file': parent_ref} if parent_ref and not parent else {}),
        'arch': meta['arch'],
        'scale': meta['scale'],
        'degradation': meta.get('degradation'),
        'iteration': ck.get('iteration'),
        'val_psnr': ck.get('val_psnr'),
    }


def lineage(run: str, file: str) -> list[dict]:
    """The runs behind run/file, root first."""
    chain, ref = [], (run, file)
    while ref:
        s = stage(*ref)
        chain.append(s)
        ref = tuple(s['parent'].split('/')) if s['parent'] else None
    return chain[::-1]


def _newest_release(network_id: str) -> dict:
    releases = [json.loads(p.read_text()) for p in (*SHIPPED.glob('*/release.json'), *RUNS.glob('*/release.json'))]
    mine = [r for r in releases if r['id'] == network_id]
    if not mine:
        raise FileNotFoundError(f'no release.json for {network_id} under shipped/ or runs/')
    return max(mine, key=lambda r: r['time'])


def _int8_make(sidecar: dict, checkpoint: str, out: str) -> str:
    tail = ' --float-tail' if 'tail output not requantized' in sidecar.get('quantization', '') else ''
    return f'python -m sr export-int8 {checkpoint}{tail} {out}'


def _kept(ref: str) -> str:
    run, file = run_of(ref)
    return f'shipped/{run}/{file}'


def _blend(out: str, sidecar: dict, export_member, tips: list) -> dict:
    """A blend file's entry: each member with a checkpoint exported to /tmp/m/ by `export_member(member, kept, path)`
    (its checkpoint added to `tips`), then export-blend of the members (shipped exports where they are one)."""
    make = []
    for member, part in zip(sidecar['members'], sidecar['blend']):
        if 'checkpoint' in member:
            tips.append(member['checkpoint'])
            make.append(export_member(member, _kept(member['checkpoint']), f"/tmp/m/{part['file']}"))
    parts = ' '.join((f"exports/{p['file']}" if (EXPORTS / p['file']).exists() else f"/tmp/m/{p['file']}") +
                     f":{p['transform']}" for p in sidecar['blend'])
    make.append(f'python -m sr export-blend {out} {parts}')
    return {'file': out, 'make': make}


def build_recipe(network_id: str) -> dict:
    """The recipe of a shipped network id (ours-fast-x2, ours-blend-x4, ...), from exports/ and the runs."""
    files, tips = [], []
    float_file = EXPORTS / f'{network_id}.onnx'
    sidecar = json.loads((EXPORTS / f'{network_id}.onnx.json').read_text())
    if 'blend' in sidecar:
        files.append(_blend(f'exports/{float_file.name}', sidecar, lambda _, kept, out: f'python -m sr export {kept} {out}', tips))
    else:
        rel = _newest_release(network_id)
        ref = f"runs/{rel['run']}/{rel.get('checkpoint', 'best.pt')}"
        tips.append(ref)
        files.append({'file': f'exports/{float_file.name}', 'checkpoint': _kept(ref),
                      'make': [rel.get('make', f'python -m sr release {rel["run"]} --id {network_id}')]})
    int8 = EXPORTS / f'{network_id}-int8.onnx'
    if int8.exists():
        side8 = json.loads((EXPORTS / f'{int8.name}.json').read_text())
        if 'blend' in side8:
            files.append(_blend(f'exports/{int8.name}', side8, _int8_make, tips))
        else:
            tips.append(side8['checkpoint'])
            files.append({'file': f'exports/{int8.name}', 'checkpoint': _kept(side8['checkpoint']),
                          'make': [_int8_make(side8, _kept(side8['checkpoint']), f'exports/{int8.name}')]})
    for f in files:
        f['sha256'] = sha256(TRAINING / f['file'])
    runs, seen = [], set()
    for ref in tips:
        for s in lineage(*run_of(ref)):
            key = (s['run'], s['checkpoint'])
            if key not in seen:
                seen.add(key)
                runs.append(s)
    kept = sorted({_kept(ref) for ref in tips})
    return {
        'id': network_id,
        'files': files,
        'checkpoints': {k: sha256(_checkpoint(*run_of(k))) for k in kept},
        'runs': runs,
    }


def write(network_id: str) -> Path:
    path = RECIPES / f'{network_id}.json'
    path.parent.mkdir(exist_ok=True)
    path.write_text(json.dumps(build_recipe(network_id), indent=1) + '\n')
    return path


def check(network_id: str) -> list[str]:
    """What in recipes/<id>.json does not hold: a shipped file or kept checkpoint missing or with another sha256, a
    file whose sidecar names a checkpoint the recipe does not keep, a run whose parent is not in the recipe."""
    recipe = json.loads((RECIPES / f'{network_id}.json').read_text())
    problems = []
    for f in recipe['files']:
        path = TRAINING / f['file']
        if not path.exists():
            problems.append(f'{f["file"]}: missing')
        elif sha256(path) != f['sha256']:
            problems.append(f'{f["file"]}: sha256 differs from the recipe')
        if 'checkpoint' in f and f['checkpoint'] not in recipe['checkpoints']:
            problems.append(f'{f["file"]}: its checkpoint {f["checkpoint"]} is not kept')
    for ck, digest in recipe['checkpoints'].items():
        path = TRAINING / ck
        if not path.exists():
            problems.append(f'{ck}: missing')
        elif sha256(path) != digest:
            problems.append(f'{ck}: sha256 differs from the recipe')
    if card_block(recipe) not in card_path(network_id).read_text():
        problems.append(f'docs/model-cards/{network_id}.md: its Files section is not the recipe\'s (python -m sr recipe card)')
    known = {f"{r['run']}/{r['checkpoint']}" for r in recipe['runs']}
    for r in recipe['runs']:
        if r['parent'] and r['parent'] not in known and not any(k.startswith(r['parent'].split('/')[0] + '/') for k in known):
            problems.append(f"run {r['run']}: parent {r['parent']} is not in the recipe")
    return problems


def shipped_ids() -> list[str]:
    """The network ids the engine's registry serves from exports/ (ours-*, int8 files under their float id)."""
    ids = {p.name.removesuffix('.onnx').removesuffix('-int8') for p in EXPORTS.glob('ours-*.onnx')}
    return sorted(ids)


CARD_START = '<!-- files: written by `python -m sr recipe card`, checked by tests/test_recipes.py -->'
CARD_END = '<!-- /files -->'


def card_block(recipe: dict) -> str:
    """The model card's "Files" section: what ships, what it was exported from, and the sha256 of each."""
    rid = recipe['id']
    lines = [CARD_START, '## Files', '',
             f'Recipe: [training/recipes/{rid}.json](../../training/recipes/{rid}.json) (every run behind these files, '
             f'root first: `python -m sr recipe show {rid}`).', '',
             '| file | sha256 |', '|---|---|']
    lines += [f"| `training/{f['file']}` | `{f['sha256']}` |" for f in recipe['files']]
    lines += [f'| `training/{ck}` | `{digest}` |' for ck, digest in recipe['checkpoints'].items()]
    return '\n'.join([*lines, CARD_END])


def card_path(network_id: str) -> Path:
    return TRAINING.parent / 'docs' / 'model-cards' / f'{network_id}.md'


def update_card(network_id: str) -> Path:
    """Puts recipes/<id>.json's card_block at the end of docs/model-cards/<id>.md (replacing the one there)."""
    recipe = json.loads((RECIPES / f'{network_id}.json').read_text())
    path = card_path(network_id)
    text = path.read_text()
    if CARD_START in text:
        head, rest = text.split(CARD_START, 1)
        text = head + card_block(recipe) + rest.split(CARD_END, 1)[1]
    else:
        text = text.rstrip('\n') + '\n\n' + card_block(recipe) + '\n'
    path.write_text(text)
    return path
