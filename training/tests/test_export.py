"""ONNX export: same output as PyTorch within 1e-3 on the 0..255 scale, any H and W."""
import numpy as np
import onnx
import onnxruntime as ort
import pytest
import torch

from sr.commands.export import export
from sr.checkpoint import load_model, save_atomic
from sr.models import build


@pytest.fixture(params=[('plain_c32_b4', 2), ('plain_c16_b2', 4)])
def checkpoint(request, tmp_path):
    arch, scale = request.param
    torch.manual_seed(3)
    model = build(arch, scale)
    with torch.no_grad():  # trained-looking weights: the tail is zero at init
        for p in model.parameters():
            p.add_(torch.randn_like(p) * 0.05)
    path = tmp_path / 'ck.pt'
    save_atomic({'meta': {'arch': arch, 'scale': scale, 'degradation': 'bicubic'},
                 'model': model.state_dict()}, path)
    return str(path), scale


def test_fused_graph_equals_training_graph(checkpoint):
    path, scale = checkpoint
    model, _ = load_model(path)
    x = torch.rand(1, 3, 19, 23, dtype=torch.float64) * 255
    model = model.double()
    ref = model(x)
    model.fuse()
    assert (model(x) - ref).abs().max().item() < 1e-8


def test_onnx_matches_pytorch(checkpoint, tmp_path):
    path, scale = checkpoint
    out = str(tmp_path / 'm.onnx')
    info = export(path, out)
    m = onnx.load(out)
    assert m.opset_import[0].version == 17
    assert [i.name for i in m.graph.input] == ['input'] and [o.name for o in m.graph.output] == ['output']
    sess = ort.InferenceSession(out, providers=['CPUExecutionProvider'])
    model, _ = load_model(path, fused=True)
    for h, w in [(17, 23), (40, 31)]:
        x = (np.random.default_rng(h).random((1, 3, h, w)) * 255).astype(np.float32)
        y = sess.run(['output'], {'input': x})[0]
        with torch.no_grad():
            ref = model(torch.from_numpy(x)).clamp(0, 255).numpy()
        assert y.shape == (1, 3, h * scale, w * scale)
        assert np.abs(y - ref).max() <= 1e-3
    assert info['scale'] == scale and info['receptive_radius_lr'] == model.receptive_radius


def test_receptive_radius_is_the_exact_tiling_halo(checkpoint, tmp_path):
    # The engine tiles with a halo of receptiveRadius LR pixels: a tile's core must come out the
    # same as from the whole image, and one pixel less of halo must not be enough.
    path, scale = checkpoint
    model, _ = load_model(path, fused=True)
    r = model.receptive_radius
    x = torch.from_numpy((np.random.default_rng(1).random((1, 3, 40, 40)) * 255).astype(np.float32))
    with torch.no_grad():
        whole = model(x)
        core = slice(15 * scale, 25 * scale)

        def tile(halo):
            y = model(x[:, :, 15 - halo:25 + halo, 15 - halo:25 + halo])
            return y[:, :, halo * scale:(halo + 10) * scale, halo * scale:(halo + 10) * scale]
        assert (tile(r) - whole[:, :, core, core]).abs().max().item() < 1e-3
        assert (tile(r - 1) - whole[:, :, core, core]).abs().max().item() > 1e-2


def test_shipped_exports_match_their_checkpoints():
    """Every released ONNX file (training/exports) equals the PyTorch model of its run within 1e-3 on 0..255.

    The random-weight cases above cover the exporter on any shape; this covers the real weights we ship.
    """
    import json
    from pathlib import Path
    here = Path(__file__).resolve().parents[1]
    released = [json.loads(p.read_text()) for p in sorted((here / 'shipped').glob('*/release.json'))]
    newest = {}
    for r in released:  # the newest release of an id is the file exports/ holds
        if r['id'] not in newest or r['time'] > newest[r['id']]['time']:
            newest[r['id']] = r
    checked = 0
    for rid, rel in sorted(newest.items()):
        onnx_path = here / rel['onnx'].removeprefix('training/')
        if not onnx_path.exists():
            continue
        sess = ort.InferenceSession(str(onnx_path), providers=['CPUExecutionProvider'])
        model, _ = load_model(str(here / 'shipped' / rel['run'] / 'best.pt'), fused=True)
        x = (np.random.default_rng(7).random((1, 3, 37, 29)) * 255).astype(np.float32)
        y = sess.run(['output'], {'input': x})[0]
        with torch.no_grad():
            ref = model(torch.from_numpy(x)).clamp(0, 255).numpy()
        assert np.abs(y - ref).max() <= 1e-3, rid
        checked += 1
    # every shipped float file has a release record, so every one was checked (8 today: fast and balanced
    # x2/x3/x4, photo x2/x4); the int8 files (*-int8.onnx) are checked against their QAT checkpoints in test_quant.py,
    # and the blends (several networks in one file: ours-blend-x2) rebuilt from their members in test_blend.py
    floats = [p for p in (here / 'exports').glob('ours-*.onnx') if not p.name.endswith('-int8.onnx')
              and 'blend' not in json.loads(p.with_name(p.name + '.json').read_text())]
    assert checked == len(floats) >= 8
