"""The licensed-photos manifest (data/licensed-photos.tsv) and the sets that read its images.

Runs without the images: it checks the manifest itself (accepted licences only for training, hashes, ids,
both splits, NOTICE attributions) and, on a few images it writes, that sr/images.py lists the fetch script's
folders as the `licensed` and `licensed-holdout` sets."""
import importlib.util
import re
import sys
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

TRAINING = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(TRAINING))
from sr.images import list_set, load_rgb  # noqa: E402

spec = importlib.util.spec_from_file_location('fetch_licensed', TRAINING / 'data' / 'fetch_licensed.py')
fetch = importlib.util.module_from_spec(spec)
spec.loader.exec_module(fetch)
ROWS = fetch.read_manifest()
INCLUDED = [r for r in ROWS if r['status'] == 'included']


def test_rows_are_well_formed():
    ids = [r['id'] for r in ROWS]
    assert len(ids) == len(set(ids)), 'duplicate ids'
    for r in ROWS:
        assert re.fullmatch(r'[a-z0-9][a-z0-9-]*', r['id']), r['id']
        assert re.fullmatch(r'[0-9a-f]{64}', r['sha256']), r['id']
        assert r['width'] > 0 and r['height'] > 0, r['id']
        assert r['status'] in ('included', 'excluded'), r['id']
        assert r['extract'] in ('image', 'edj-largest-jpeg'), r['id']
        assert r['package'] and r['version'] and r['path'] and not r['path'].startswith('/'), r['id']
        assert r['licence'] and r['author'], r['id']
        if r['status'] == 'excluded':
            assert r['split'] == '-' and r['note'], f"{r['id']}: an excluded row needs its reason, no split"
    # one source file gives one image
    assert len({(r['package'], r['path']) for r in ROWS}) == len(ROWS)


def test_only_accepted_licences_are_trained_on():
    for r in INCLUDED:
        assert r['licence'] in fetch.ACCEPTED, r['id']
        assert not fetch.REFUSED.match(r['licence']), r['id']
    for lic in ('CC-BY-SA-4.0', 'CC-BY-SA-3.0', 'GPL-2+', 'LGPL-2.1+', 'none'):
        assert lic not in fetch.ACCEPTED and fetch.REFUSED.match(lic)
    # every share-alike / copyleft / unlicensed row is recorded as excluded
    assert all(r['status'] == 'excluded' for r in ROWS if fetch.REFUSED.match(r['licence']))


# the holdout is fixed: the published real-photo and distillation measures keep their inputs, and photos added
# later all train (docs/dataset-licences.md), so its share of the set shrinks as the set grows
HOLDOUT = {'enl-foggy-trees', 'enl-mountain', 'lomiri1604-picosdeeuropa', 'skimage-gravel'}


def test_both_splits_are_non_empty_and_the_holdout_is_fixed():
    train = [r for r in INCLUDED if r['split'] == 'train']
    holdout = [r for r in INCLUDED if r['split'] == 'holdout']
    assert len(train) + len(holdout) == len(INCLUDED) and train and holdout
    assert {r['id'] for r in holdout} == HOLDOUT
    assert len(holdout) / len(INCLUDED) <= 0.2
    assert len({r['package'] for r in holdout}) > 1, 'the holdout should span packages'


def test_pool_url_names_the_deb_in_the_debian_pool():
    assert fetch.pool_url('budgie-backgrounds', '3.0-1') == \
        'http://deb.debian.org/debian/pool/main/b/budgie-backgrounds/budgie-backgrounds_3.0-1_all.deb'
    assert fetch.pool_url('libfoo-data', '4:1.2-3').endswith('/main/libf/libfoo-data/libfoo-data_1.2-3_all.deb')


def test_notice_attributes_every_image_that_needs_it():
    notice = (TRAINING.parent / 'NOTICE').read_text(encoding='utf-8')
    for r in INCLUDED:
        if r['licence'] in fetch.ATTRIBUTION:
            assert Path(r['path']).name in notice, f"{r['id']}: {r['path']} not in NOTICE"
            assert r['licence'] in notice, r['licence']


def _png(path, w, h, value):
    path.parent.mkdir(parents=True, exist_ok=True)
    Image.fromarray(np.full((h, w, 3), value, np.uint8)).save(path)


def test_licensed_sets_list_the_fetch_scripts_folders(tmp_path, monkeypatch):
    monkeypatch.setenv('SR_LICENSED_DIR', str(tmp_path))
    _png(tmp_path / 'train' / 'b.png', 8, 6, 1)
    _png(tmp_path / 'train' / 'a.png', 8, 6, 2)
    _png(tmp_path / 'holdout' / 'c.png', 4, 4, 3)
    assert [f.name for f in list_set('licensed')] == ['a.png', 'b.png']
    assert [f.name for f in list_set('licensed-holdout')] == ['c.png']
    assert load_rgb(list_set('licensed-holdout')[0]).shape == (4, 4, 3)
    assert fetch.dest_root() == tmp_path


def test_missing_licensed_images_name_the_fetch_script(tmp_path, monkeypatch):
    monkeypatch.setenv('SR_LICENSED_DIR', str(tmp_path / 'nothing'))
    with pytest.raises(FileNotFoundError, match='fetch_licensed.py'):
        list_set('licensed')
