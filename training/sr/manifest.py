"""The licensed photos' manifest (data/licensed-photos.tsv) as the model cards describe it."""
import importlib.util

from sr.paths import TRAINING


def read_manifest() -> list:
    """The manifest's rows as dicts, read by data/fetch_licensed.py (a script outside the package, loaded by path)."""
    spec = importlib.util.spec_from_file_location('fetch_licensed', TRAINING / 'data' / 'fetch_licensed.py')
    fetch = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(fetch)
    return fetch.read_manifest()


def training_photos() -> str:
    """The manifest's train split, by licence: '29 photos (12 BSD-2-Clause, ...)'."""
    train = [r for r in read_manifest() if r['split'] == 'train']
    by = {}
    for r in train:
        by[r['licence']] = by.get(r['licence'], 0) + 1
    return f"{len(train)} photos (" + ', '.join(f'{n} {lic}' for lic, n in sorted(by.items(), key=lambda kv: -kv[1])) + ')'
