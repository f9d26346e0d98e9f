"""Several ONNX networks of one scale, each run on its own rotation or mirroring of the input, averaged in one file.

  python -m sr export-blend exports/ours-balanced-x2-blend.onnx exports/ours-balanced-x2.onnx:0 /tmp/c96-int8.onnx:1

out = mean over the listed NET:T of  T^-1( NET( T(input) ) ), with T a dihedral transform numbered as in
libs/engine/src/inference/dihedral.ts and pass_blends.py (rotate t >> 1 quarter turns, then mirror when t is odd).
The file keeps the engine's I/O convention (export.py: "input" N x 3 x H x W float32 RGB 0..255 -> "output"
N x 3 x sH x sW, H and W dynamic), so the engine runs it as one network, and its own self-ensemble on top composes
with the transforms inside: a blend of A:0 and B:1 self-ensembled over [0, 2, 4, 6] runs A on the four rotations
and B on the four mirrorings (pass_blends.py's `A:0246+B:1357`). Each member keeps its own weights and arithmetic
(a float32 network next to an int8 one is what `best` at x2 and x4 runs, training/results/int8.md); the transforms
are Transpose and reversed Slice nodes, so a tile's output is still exactly that of the whole image whenever the
receptive radius covers the largest member's (every transform maps the square halo onto itself).

Why not onnx.compose.merge_models: it joins graphs output to input; here the same input feeds every member and
their outputs are averaged, so the members' nodes are copied under prefixes instead.
"""
import argparse
import json
import sys
from pathlib import Path

import numpy as np
import onnx
from onnx import helper, numpy_helper

H, W = 2, 3  # NCHW axes


def _flip(src: str, axis: int, nodes: list, inits: dict) -> str:
    """src reversed along `axis`: Slice with step -1 from the last element to before the first (constants shared)."""
    for name, value in (('flip_starts', [-1]), ('flip_ends', [np.iinfo(np.int64).min]), ('flip_steps', [-1]),
                        (f'flip_axis{axis}', [axis])):
        inits.setdefault(name, numpy_helper.from_array(np.array(value, np.int64), name))
    dst = f'{src}/flip{axis}'
    nodes.append(helper.make_node('Slice', [src, 'flip_starts', 'flip_ends', f'flip_axis{axis}', 'flip_steps'], [dst],
                                  name=dst))
    return dst


def _transpose(src: str, nodes: list) -> str:
    dst = f'{src}/T'
    nodes.append(helper.make_node('Transpose', [src], [dst], perm=[0, 1, W, H], name=dst))
    return dst


def _rot90(src: str, k: int, nodes: list, inits: dict) -> str:
    """numpy.rot90(a, k) over the (H, W) axes, as numpy computes it."""
    k %= 4
    if k == 1:
        return _transpose(_flip(src, W, nodes, inits), nodes)
    if k == 2:
        return _flip(_flip(src, H, nodes, inits), W, nodes, inits)
    if k == 3:
        return _flip(_transpose(src, nodes), W, nodes, inits)
    return src


def transform(src: str, t: int, nodes: list, inits: dict, inverse: bool = False) -> str:
    """Nodes computing dihedral transform t of src (or its inverse); returns the result's name (unique per src)."""
    if not inverse:
        x = _rot90(src, t >> 1, nodes, inits)
        return _flip(x, W, nodes, inits) if t & 1 else x
    x = _flip(src, W, nodes, inits) if t & 1 else src
    return _rot90(x, -(t >> 1), nodes, inits)


def _copy_member(model: onnx.ModelProto, m: int, j: int, src: str, nodes: list, inits: dict) -> str:
    """The member's nodes reading `src` as its input; its weights under `m{m}/` (once per file), its values under `p{j}/`."""
    g = model.graph
    weights = {i.name for i in g.initializer}
    for i in g.initializer:
        name = f'm{m}/{i.name}'
        if name not in inits:
            copy = onnx.TensorProto()
            copy.CopyFrom(i)
            copy.name = name
            inits[name] = copy
    (inp,), (outp,) = [i.name for i in g.input], [o.name for o in g.output]

    def rename(v: str) -> str:
        if v == '':
            return v
        if v == inp:
            return src
        return f'm{m}/{v}' if v in weights else f'p{j}/{v}'

    for n in g.node:
        if any(a.type == onnx.AttributeProto.GRAPH for a in n.attribute):
            raise ValueError('members with subgraphs are not supported')
        copy = onnx.NodeProto()
        copy.CopyFrom(n)
        copy.name = f'p{j}/{n.name}'
        del copy.input[:]
        copy.input.extend(rename(v) for v in n.input)
        del copy.output[:]
        copy.output.extend(rename(v) for v in n.output)
        nodes.append(copy)
    return rename(outp)


def blend(members: list, out: str) -> dict:
    """members: [(onnx path, transform)]; writes `out` and returns its description."""
    files = list(dict.fromkeys(p for p, _ in members))
    models = [onnx.load(p) for p in files]
    opsets = {}
    for model in models:
        for o in model.opset_import:
            if opsets.setdefault(o.domain, o.version) != o.version:
                raise ValueError(f'members import {o.domain or "ai.onnx"} at different versions')
    nodes, inits, outs, inputs = [], {}, [], {}
    for j, (path, t) in enumerate(members):
        m = files.index(path)
        if t not in inputs:  # members on the same transform read one copy of it
            inputs[t] = transform('input', t, nodes, inits)
        x = inputs[t]
        y = _copy_member(models[m], m, j, x, nodes, inits)
        outs.append(transform(y, t, nodes, inits, inverse=True))
    inits['blend_inv_n'] = numpy_helper.from_array(np.array(1 / len(members), np.float32), 'blend_inv_n')
    nodes.append(helper.make_node('Sum', outs, ['blend_sum'], name='blend_sum'))
    nodes.append(helper.make_node('Mul', ['blend_sum', 'blend_inv_n'], ['output'], name='blend_mean'))
    g0 = models[0].graph
    graph = helper.make_graph(nodes, 'blend', [g0.input[0]], [g0.output[0]], list(inits.values()))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid(d, v) for d, v in opsets.items()],
                              producer_name='upscaler export_blend.py')
    model.ir_version = models[0].ir_version
    onnx.checker.check_model(model)
    onnx.save(model, out)
    sidecars = []
    for p in files:
        side = Path(p + '.json')
        sidecars.append(json.loads(side.read_text()) if side.exists() else {'file': Path(p).name})
    radius = max(s.get('receptive_radius_lr', 0) for s in sidecars)
    info = {'file': Path(out).name, 'blend': [{'file': Path(p).name, 'transform': t} for p, t in members],
            'precision': 'int8' if any(s.get('precision') == 'int8' for s in sidecars) else 'float32',
            'scale': sidecars[0].get('scale'), 'receptive_radius_lr': radius,
            'input': 'input: N x 3 x H x W float32 RGB 0..255', 'output': 'output: N x 3 x sH x sW float32 RGB 0..255',
            'members': sidecars}
    Path(out + '.json').write_text(json.dumps(info, indent=1) + '\n')
    return info


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('out')
    ap.add_argument('members', nargs='+', help='NET.onnx:T (T a dihedral transform 0..7), one per pass')
    a = ap.parse_args()
    members = []
    for spec in a.members:
        path, t = spec.rsplit(':', 1)
        if not 0 <= int(t) <= 7:
            sys.exit(f'export_blend.py: transform {t} is not 0..7')
        members.append((path, int(t)))
    info = blend(members, a.out)
    print(json.dumps({k: v for k, v in info.items() if k != 'members'}, indent=1))


if __name__ == '__main__':
    main()
