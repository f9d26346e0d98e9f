import os
import sys
from pathlib import Path

# The package (sr) from this checkout, here and in the commands the tests start (`python -m sr ...`).
TRAINING = str(Path(__file__).resolve().parents[1])
sys.path.insert(0, TRAINING)
os.environ['PYTHONPATH'] = os.pathsep.join(p for p in (TRAINING, os.environ.get('PYTHONPATH')) if p)

import pytest  # noqa: E402
import torch  # noqa: E402


@pytest.fixture
def qat_parent(tmp_path):
    """A small float checkpoint with trained-looking weights (plain_c16_b2 x2, seed 5, T91), for train_qat.py runs."""
    from sr.checkpoint import save_atomic
    from sr.models import build
    torch.manual_seed(1)
    model = build('plain_c16_b2', 2)
    with torch.no_grad():
        for p in model.parameters():
            p.add_(torch.randn_like(p) * 0.05)
    path = tmp_path / 'parent.pt'
    save_atomic({'meta': {'arch': 'plain_c16_b2', 'scale': 2, 'degradation': 'bicubic',
                          'config': {'seed': 5, 'sets': 'T91'}}, 'model': model.state_dict(), 'iteration': 0}, path)
    return path
