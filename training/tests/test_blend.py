"""export_blend.py: the in-graph dihedral transforms are pass_blends.py's, and a blend file is the mean of its members."""
import json
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest
import torch
from onnx import TensorProto, helper

from sr.commands import export_blend as export_blend
from sr.commands.export import export
from sr.commands.pass_blends import back, forward
from sr.checkpoint import save_atomic
from sr.models import build


def _run(model_or_path, hwc: np.ndarray) -> np.ndarray:
    src = model_or_path if isinstance(model_or_path, str) else model_or_path.SerializeToString()
    s = ort.InferenceSession(src, providers=['CPUExecutionProvider'])
    x = np.ascontiguousarray(hwc.transpose(2, 0, 1))[None].astype(np.float32)
    return s.run(None, {'input': x})[0][0].transpose(1, 2, 0)


@pytest.mark.parametrize('t', range(8))
@pytest.mark.parametrize('inverse', [False, True])
def test_transform_nodes_equal_pass_blends(t, inverse):
    nodes, inits = [], {}
    y = export_blend.transform('input', t, nodes, inits, inverse=inverse)
    nodes.append(helper.make_node('Identity', [y], ['output']))
    g = helper.make_graph(nodes, 'g', [helper.make_tensor_value_info('input', TensorProto.FLOAT, [1, 3, None, None])],
                          [helper.make_tensor_value_info('output', TensorProto.FLOAT, None)], list(inits.values()))
    model = helper.make_model(g, opset_imports=[helper.make_opsetid('', 17)])
    model.ir_version = 8
    a = np.random.default_rng(t).random((5, 7, 3)).astype(np.float32)  # H != W: a wrong rotation changes the shape
    want = (back if inverse else forward)(t, a)
    got = _run(model, a)
    assert got.shape == want.shape and np.array_equal(got, want)


def _member(tmp_path, name, arch, seed):
    torch.manual_seed(seed)
    model = build(arch, 2)
    with torch.no_grad():
        for p in model.parameters():
            p.add_(torch.randn_like(p) * 0.05)
    ck = tmp_path / f'{name}.pt'
    save_atomic({'meta': {'arch': arch, 'scale': 2, 'degradation': 'bicubic'}, 'model': model.state_dict()}, ck)
    out = str(tmp_path / f'{name}.onnx')
    export(str(ck), out)
    return out


def test_blend_is_the_mean_of_its_members_turned_back(tmp_path):
    a = _member(tmp_path, 'a', 'plain_c16_b2', 1)
    b = _member(tmp_path, 'b', 'plain_c32_b4', 2)
    out = str(tmp_path / 'blend.onnx')
    info = export_blend.blend([(a, 0), (b, 5), (a, 3)], out)
    onnx.checker.check_model(onnx.load(out))
    img = (np.random.default_rng(0).random((13, 21, 3)) * 255).astype(np.float32)
    parts = [back(t, _run(p, np.ascontiguousarray(forward(t, img)))) for p, t in [(a, 0), (b, 5), (a, 3)]]
    want = (parts[0] + parts[1] + parts[2]) / 3
    got = _run(out, img)
    assert got.shape == (26, 42, 3)
    assert np.abs(got - want).max() < 1e-3  # float32 sums in another order
    # The sidecar: the largest member's halo, the members in order, each file's weights once.
    side = json.loads(open(out + '.json').read())
    assert side == info
    assert info['receptive_radius_lr'] == 6 and info['precision'] == 'float32' and info['scale'] == 2
    assert info['blend'] == [{'file': 'a.onnx', 'transform': 0}, {'file': 'b.onnx', 'transform': 5},
                             {'file': 'a.onnx', 'transform': 3}]
    weights = {i.name for i in onnx.load(out).graph.initializer}
    assert sum(n.startswith('m0/') for n in weights) == len(onnx.load(a).graph.initializer)


def test_shipped_blends_are_their_members_rebuilt_from_checkpoints(tmp_path):
    """Every blend in training/exports equals the blend of its members exported again from their checkpoints (a member
    without one in its sidecar is the shipped file of that name: ours-balanced-x2.onnx and ours-balanced-x4.onnx, released
    by release.py)."""
    from sr.commands.export_int8 import export as export_int8
    here = Path(__file__).resolve().parents[1]
    sidecars = [p for p in sorted((here / 'exports').glob('*.onnx.json')) if 'blend' in json.loads(p.read_text())]
    assert [p.name for p in sidecars] == ['ours-blend-x2-int8.onnx.json', 'ours-blend-x2.onnx.json',
                                          'ours-blend-x4-int8.onnx.json', 'ours-blend-x4.onnx.json']
    img = (np.random.default_rng(4).random((23, 31, 3)) * 255).astype(np.float32)
    for sc in sidecars:
        info = json.loads(sc.read_text())
        paths = {}
        for m in info['members']:
            if 'checkpoint' not in m:
                paths[m['file']] = str(here / 'exports' / m['file'])
            elif m.get('precision') == 'int8':
                paths[m['file']] = str(tmp_path / m['file'])
                export_int8(str(here / m['checkpoint']), paths[m['file']], float_tail=bool(m.get('float_tail')))
            else:
                paths[m['file']] = str(tmp_path / m['file'])
                export(str(here / m['checkpoint']), paths[m['file']])
        rebuilt = str(tmp_path / info['file'])
        export_blend.blend([(paths[b['file']], b['transform']) for b in info['blend']], rebuilt)
        assert np.array_equal(_run(rebuilt, img), _run(str(sc.with_suffix('')), img)), sc.name


def test_members_on_the_same_transform_share_its_input(tmp_path):
    a = _member(tmp_path, 'a', 'plain_c16_b2', 1)
    b = _member(tmp_path, 'b', 'plain_c16_b2', 2)
    out = str(tmp_path / 'same.onnx')
    export_blend.blend([(a, 3), (b, 3)], out)
    img = (np.random.default_rng(1).random((9, 14, 3)) * 255).astype(np.float32)
    want = sum(back(3, _run(p, np.ascontiguousarray(forward(3, img)))) for p in (a, b)) / 2
    assert np.abs(_run(out, img) - want).max() < 1e-3
    forward_nodes = [n for n in onnx.load(out).graph.node if n.input and n.input[0] == 'input']
    assert len(forward_nodes) == 1  # transform 3 of the input, computed once for both members
