"""sr park: a run kept in git for the next machine is its model and meta, not its optimizer."""
import torch

from sr.checkpoint import save_atomic
from sr.commands.park import park
from sr.commands.recipe import RESUME_ONLY
from sr.models import build
from sr.paths import PARKED
from sr.recipe import run_of


def test_park_keeps_model_and_meta_and_drops_what_only_resume_reads(tmp_path):
    torch.manual_seed(3)
    model = build('plain_c16_b2', 2)
    opt = torch.optim.Adam(model.parameters())
    runs, parked = tmp_path / 'runs', tmp_path / 'parked'
    (runs / 'x2_try').mkdir(parents=True)
    meta = {'arch': 'plain_c16_b2', 'scale': 2, 'degradation': 'bicubic', 'config': {'seed': 1, 'sets': 'licensed'}}
    save_atomic({'meta': meta, 'model': model.state_dict(), 'iteration': 1234, 'val_psnr': 33.21,
                 'opt': opt.state_dict(), 'sched': {'last_epoch': 1234}, 'torch_rng': torch.get_rng_state()},
                runs / 'x2_try' / 'last.pt')
    (runs / 'x2_try' / 'metrics.jsonl').write_text('{"it": 1234}\n')

    line = park('x2_try', runs=runs, parked=parked)

    kept = torch.load(parked / 'x2_try' / 'last.pt', map_location='cpu', weights_only=False)
    assert sorted(kept) == ['iteration', 'meta', 'model', 'val_psnr']
    assert not set(RESUME_ONLY) & set(kept)
    assert kept['meta'] == meta and kept['iteration'] == 1234
    assert all(torch.equal(kept['model'][k], v) for k, v in model.state_dict().items())
    assert (parked / 'x2_try' / 'metrics.jsonl').read_text() == '{"it": 1234}\n'
    assert line.startswith('parked x2_try/last.pt: iteration 1234, held-out 33.21 dB, ')


def test_a_parked_checkpoint_is_a_run_checkpoint_for_recipes():
    assert run_of('parked/x2_bal_lic/last.pt') == ('x2_bal_lic', 'last.pt')
    assert run_of('/work/main/training/parked/x4_bal_lic/best.pt') == ('x4_bal_lic', 'best.pt')


def test_what_is_parked_in_git_holds_no_resume_state_and_stays_small():
    files = sorted(PARKED.glob('*/*.pt'))
    assert sum(f.stat().st_size for f in files) < 20e6, 'parked/ is for a few runs in progress, not an archive'
    for f in files:
        ck = torch.load(f, map_location='cpu', weights_only=False)
        assert not set(RESUME_ONLY) & set(ck), f'{f} carries resume-only state: park it with sr park'
