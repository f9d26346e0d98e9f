"""recipes/: one per shipped network; its files, kept checkpoints and model card's Files section agree (sha256)."""
import json

import pytest

from sr import recipe as rc
from sr.paths import EXPORTS, RECIPES, SHIPPED


def test_every_shipped_network_has_a_recipe_and_every_recipe_a_shipped_network():
    assert sorted(p.stem for p in RECIPES.glob('*.json')) == rc.shipped_ids()
    assert len(rc.shipped_ids()) == 10


@pytest.mark.parametrize('network_id', rc.shipped_ids())
def test_recipe_holds(network_id):
    assert rc.check(network_id) == []


def test_every_exported_file_is_in_a_recipe_and_every_kept_checkpoint_is_used():
    recipes = [json.loads(p.read_text()) for p in RECIPES.glob('*.json')]
    files = sorted(f['file'] for r in recipes for f in r['files'])
    assert files == sorted(f'exports/{p.name}' for p in EXPORTS.glob('ours-*.onnx'))
    kept = sorted({ck for r in recipes for ck in r['checkpoints']})
    assert kept == sorted(f'shipped/{p.relative_to(SHIPPED)}' for p in SHIPPED.glob('*/*.pt'))


def test_check_names_a_changed_file(tmp_path, monkeypatch):
    recipe = json.loads((RECIPES / 'ours-fast-x2.json').read_text())
    recipe['files'][0]['sha256'] = '0' * 64
    (tmp_path / 'ours-fast-x2.json').write_text(json.dumps(recipe))
    monkeypatch.setattr(rc, 'RECIPES', tmp_path)
    problems = rc.check('ours-fast-x2')
    assert 'exports/ours-fast-x2.onnx: sha256 differs from the recipe' in problems


def test_a_run_command_is_rebuilt_from_its_recorded_options():
    config = {'scale': 2, 'arch': 'plain_c64_b12', 'iters': 16000, 'lr': 0.0004, 'init': None,
              'grow_from': 'packs/grow/x2_bal64b10c2.pt', 'max_minutes': 0, 'bf16_from': 0}
    assert rc.command_line('train', 'x2_bal64b12', config) == (
        'python -m sr train --name x2_bal64b12 --scale 2 --arch plain_c64_b12 --iters 16000 --lr 0.0004 '
        '--grow-from runs/x2_bal64b10c2/best.pt --max-minutes 0')
    assert rc.run_of('/tmp/gpu_plan/x3_bal64b8_gpu/best.pt') == ('x3_bal64b8_gpu', 'best.pt')
    assert rc.run_of('shipped/x2_bal96b14_qat/it1228.pt') == ('x2_bal96b14_qat', 'it1228.pt')
