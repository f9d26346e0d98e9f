"""int8 (QDQ) export of the quantization-aware network: onnxruntime runs every conv as QLinearConv and
its output equals the PyTorch fake-quant model's; QAT runs resume exactly.

Tolerance: QuantSR computes each quantized conv the way QLinearConv does (integer accumulator, then
round(float32(acc) * s_in * s_w / s_out)), so the two agree exactly (measured: 0 on every pixel); the
tests allow one grey level (the tail's quantization step) in at most 0.1% of the output values, room
for a float32 partial sum of the accumulator passing 2^24 or another summation order of oneDNN's
convolution landing on a rounding tie.
"""
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest
import torch

from sr.checkpoint import load_model
from sr.models import build
from sr.quant import QuantSR, export_qdq, load_qat, ort_optimized_ops

HERE = Path(__file__).resolve().parents[1]


def smooth_images(n, h, w, seed):
    """Integer 0..255 images with image-like local correlation (upsampled noise), NCHW float32."""
    g = torch.Generator().manual_seed(seed)
    low = torch.rand(n, 3, h // 4 + 2, w // 4 + 2, generator=g) * 255
    x = torch.nn.functional.interpolate(low, size=(h, w), mode='bilinear', align_corners=False)
    return (x + torch.randn(n, 3, h, w, generator=g) * 4).clamp(0, 255).round()


@pytest.fixture(params=[('plain_c32_b4', 2), ('plain_c16_b2', 4)])
def qmodel(request):
    arch, scale = request.param
    torch.manual_seed(3)
    model = build(arch, scale)
    with torch.no_grad():  # trained-looking weights: the tail is zero at init
        for p in model.parameters():
            p.add_(torch.randn_like(p) * 0.05)
    q = QuantSR.from_plain(model.eval())
    q.calibrate([smooth_images(2, 32, 32, s) for s in range(2)])
    return model, q.eval(), scale


def test_folded_float_graph_equals_parent(qmodel):
    model, q, _ = qmodel
    q.quant = False
    x = smooth_images(1, 19, 23, 5)
    with torch.no_grad():
        assert (q(x) - model(x)).abs().max().item() < 1e-3
    q.quant = True


def test_integer_params_are_what_the_model_computes_with(qmodel):
    _, q, _ = qmodel
    s_in = q.input_scales()
    params = q.integer_params()
    for i, p in enumerate(params):
        wq, bq, sw = q.integer_weights(i, s_in[i])
        assert p['w'].dtype == np.int8 and np.abs(p['w']).max() <= 127 and p['b'].dtype == np.int32
        assert np.array_equal(p['w'], wq.detach().numpy().astype(np.int8))
        assert np.array_equal(p['b'], bq.detach().numpy().astype(np.int32))
        assert np.array_equal(p['b_scale'], (s_in[i] * sw).detach().numpy())
        # dequantized weights are within half a step of the float weights (per output channel)
        err = np.abs(p['w'] * p['w_scale'][:, None, None, None] - q.convs[i].weight.detach().numpy())
        assert (err <= p['w_scale'][:, None, None, None] / 2 + 1e-9).all()
        assert p['in_scale'] == (params[i - 1]['out_scale'] if i else np.float32(1 / 255))
    assert params[-1]['out_zp'] == 128 and all(p['out_zp'] == 0 for p in params[:-1])


def test_qdq_onnx_runs_int8_and_equals_fake_quant(qmodel, tmp_path):
    _, q, scale = qmodel
    out = str(tmp_path / 'm.onnx')
    info = export_qdq(q, out)
    m = onnx.load(out)
    assert m.opset_import[0].version == 17
    assert [i.name for i in m.graph.input] == ['input'] and [o.name for o in m.graph.output] == ['output']
    ops = ort_optimized_ops(out)
    assert ops.get('QLinearConv') == info['convs'] == len(q.convs) and 'Conv' not in ops, ops
    sess = ort.InferenceSession(out, providers=['CPUExecutionProvider'])
    for h, w in [(17, 23), (48, 40)]:
        x = smooth_images(1, h, w, h)
        y = sess.run(['output'], {'input': x.numpy()})[0]
        with torch.no_grad():
            ref = q(x).clamp(0, 255).numpy()
        assert y.shape == (1, 3, h * scale, w * scale)
        d = np.abs(y - ref)
        assert d.max() <= 1.0 + 1e-3, d.max()
        assert (d > 1e-3).mean() <= 1e-3, (d > 1e-3).mean()


def test_float_tail_onnx_runs_one_float_conv_and_equals_fake_quant(qmodel, tmp_path):
    """export_qdq of a model with float_tail: every conv but the tail is QLinearConv, and the output equals QuantSR with
    float_tail (the tail's int8 weights on its uint8 input, unrounded) to float32 summation error; rounded, it is
    the requantized tail's image wherever the residual stays within +-127 grey levels."""
    _, q, scale = qmodel
    out = str(tmp_path / 'm.onnx')
    q.float_tail = True
    info = export_qdq(q, out)
    assert info['tail'] == 'float32' and info['padded_channels']['tail_output'] == 0
    ops = ort_optimized_ops(out)
    assert ops.get('QLinearConv') == len(q.convs) - 1 and ops.get('Conv') == 1, ops
    sess = ort.InferenceSession(out, providers=['CPUExecutionProvider'])
    x = smooth_images(1, 29, 31, 3)
    y = sess.run(['output'], {'input': x.numpy()})[0]
    with torch.no_grad():
        q.float_tail = True
        ref = q(x).clamp(0, 255).numpy()
        q.float_tail = False
        rounded = q(x).clamp(0, 255).numpy()
    assert np.abs(y - ref).max() < 1e-3
    assert np.abs(y - y.round()).max() > 0.1  # unrounded residuals
    up = torch.nn.functional.pixel_shuffle(x.repeat_interleave(scale * scale, dim=1), scale).numpy()
    inside = (np.abs(y - up) < 126) & (y > 0) & (y < 255)  # neither the tail's range nor the clamp saturates
    assert inside.mean() > 0.1  # the test networks are random: many residuals saturate
    assert np.array_equal(np.round(y)[inside], np.round(rounded)[inside])


def run_qat(runs_dir, *args):
    env = dict(os.environ, SR_RUNS_DIR=str(runs_dir))
    subprocess.run([sys.executable, '-m', 'sr', 'qat', *args], env=env, check=True, capture_output=True)


def test_qat_fit_minutes_ends_the_schedule_in_time(tmp_path, qat_parent):
    """--fit-minutes: after the probe, --iters is cut to what fits the time, and the cosine schedule (which reads the
    length at every step) ends at lr / 100 on the last iteration; a resumed run keeps the fitted length."""
    env = dict(os.environ, SR_RUNS_DIR=str(tmp_path))
    args = ['--from', str(qat_parent), '--batch', '2', '--patch', '16', '--calib-batches', '1', '--lr', '1e-4',
            '--threads', '1', '--eval-every', '5']
    r = subprocess.run([sys.executable, '-m', 'sr', 'qat', '--name', 'fit', *args, '--iters', '1000000',
                        '--fit-probe', '20', '--fit-minutes', '0.3'], env=env, check=True, capture_output=True, text=True)
    assert 'fit: ' in r.stdout and 'iterations end within 0.3 min' in r.stdout, r.stdout
    last = torch.load(tmp_path / 'fit' / 'last.pt', weights_only=False)
    iters = last['meta']['config']['iters']
    assert 20 < iters < 1000000 and last['iteration'] == iters
    assert abs(last['opt']['param_groups'][0]['lr'] - 1e-6) < 1e-9
    assert r.stdout.splitlines()[-1] == f'done {iters}'
    bad = subprocess.run([sys.executable, '-m', 'sr', 'qat', '--name', 'fit', '--resume', '--fit-minutes', '1'],
                         env=env, capture_output=True, text=True)
    assert bad.returncode == 2 and '--fit-minutes sizes a new run' in bad.stderr


@pytest.mark.parametrize('extra', [[], ['--equalize', '0.5', '--box', '1']], ids=['plain', 'equalized-boxed'])
def test_qat_resume_is_exact_and_exports(tmp_path, qat_parent, extra):
    parent = qat_parent
    args = ['--from', str(parent), '--iters', '6', '--batch', '2', '--patch', '16', '--calib-batches', '1',
            '--lr', '1e-4', '--threads', '1', '--distill', '0.5', *extra]
    run_qat(tmp_path, '--name', 'straight', *args)
    run_qat(tmp_path, '--name', 'split', *args, '--stop-at', '3')
    assert torch.load(tmp_path / 'split' / 'last.pt', weights_only=False)['iteration'] == 3
    run_qat(tmp_path, '--name', 'split', '--resume')
    a = torch.load(tmp_path / 'straight' / 'last.pt', weights_only=False)
    b = torch.load(tmp_path / 'split' / 'last.pt', weights_only=False)
    assert a['iteration'] == b['iteration'] == 6
    for k in a['model']:
        assert torch.allclose(a['model'][k], b['model'][k], rtol=0, atol=1e-6), k
    assert not torch.equal(a['model']['log_act_scale'], torch.zeros_like(a['model']['log_act_scale']))  # calibrated
    # metrics: iteration 0 (calibrated only), 3, 6 for the split run
    its = [json.loads(r)['iteration'] for r in (tmp_path / 'split' / 'metrics.jsonl').read_text().splitlines()]
    assert its == [0, 3, 6]
    # the checkpoint loads through the common loader and exports to int8
    qm, meta = load_model(str(tmp_path / 'straight' / 'best.pt'))
    assert isinstance(qm, QuantSR) and meta['qat']
    sys.path.insert(0, str(HERE))
    from sr.commands.export_int8 import export
    info = export(str(tmp_path / 'straight' / 'best.pt'), str(tmp_path / 'int8.onnx'))
    assert info['precision'] == 'int8' and info['ort_optimized_ops']['QLinearConv'] == 4


def test_equalize_keeps_the_float_function_and_evens_the_channel_ranges(qmodel):
    """Cross-layer equalization: the same float output (to float rounding), and in every hidden layer the
    smallest channel maximum is a larger fraction of the largest than before (power 0.5: its square root)."""
    _, q, _ = qmodel
    x = [smooth_images(2, 32, 32, s) for s in range(2)]

    def spread(model):  # per hidden layer: min over max of the channels' largest activations
        out = []
        for t in model.hidden_activations(torch.cat(x)):
            r = t.amax(dim=(0, 2, 3))
            r = r[r > 1e-6]
            out.append((r.min() / r.max()).item())
        return out

    q.quant = False
    before_out, before = q(x[0]), spread(q)
    gains = q.equalize(x, 0.5)
    after_out, after = q(x[0]), spread(q)
    q.quant = True
    assert (after_out - before_out).abs().max().item() < 1e-3
    assert len(gains) == len(q.convs) - 1 and all(g.min().item() >= 1.0 for g in gains)
    for b, a in zip(before, after):
        assert b < 0.5 and a == pytest.approx(b ** 0.5, rel=1e-3)  # no gain reaches the clamp (64) here


def test_qat_box_keeps_every_weight_within_its_grid_steps_of_the_parent(tmp_path, qat_parent):
    """--box 1: after fine-tuning at a learning rate that moves weights by many grid steps, each folded
    weight is still within one of the parent's per-channel int8 steps of the parent's; without the box the
    same run leaves the box (so the bound is the option's doing, not the learning rate's)."""
    args = ['--from', str(qat_parent), '--iters', '20', '--batch', '2', '--patch', '16', '--calib-batches', '1',
            '--lr', '3e-2', '--threads', '1']
    run_qat(tmp_path, '--name', 'boxed', *args, '--box', '1')
    run_qat(tmp_path, '--name', 'free', *args)
    parent, _ = load_model(str(qat_parent), fused=True)
    ref = QuantSR.from_plain(parent)
    steps = {}
    for name in ('boxed', 'free'):
        q = QuantSR.from_plain(parent)
        q.load_state_dict(torch.load(tmp_path / name / 'last.pt', weights_only=False)['model'])
        steps[name] = max(((c.weight - r.weight).abs() / (r.weight.abs().amax(dim=(1, 2, 3)) / 127)[:, None, None, None])
                          .max().item() for c, r in zip(q.convs, ref.convs))
    assert steps['boxed'] <= 1.0 + 1e-4, steps
    assert steps['free'] > 3.0, steps
    cfg = torch.load(tmp_path / 'boxed' / 'last.pt', weights_only=False)['meta']['config']
    assert cfg['box'] == 1.0


def test_sensitivity_forward_is_the_int8_and_the_float_network(qmodel):
    """int8_sensitivity.py's fake-quant forward with every layer quantized is QuantSR's int8 forward up to
    rounding ties (float products instead of an integer accumulator: they land on the other side of a
    requantization now and then, and the change travels through the later layers), so the mean difference
    stays under 0.01 grey level (without the int32 bias rounding it was 0.29 and 0.05); with none
    quantized it is the float forward."""
    sys.path.insert(0, str(HERE))
    from sr.commands.int8_sensitivity import mixed_forward
    _, q, scale = qmodel
    x = smooth_images(2, 24, 28, 9)
    layers = range(len(q.convs))
    with torch.no_grad():
        d = (mixed_forward(q, x, layers, layers, True) - q(x)).abs()
        q.quant = False
        f = (mixed_forward(q, x, [], [], False) - q(x)).abs()
        q.quant = True
    assert d.mean().item() < 0.01
    assert f.max().item() <= 1e-3


def test_shipped_int8_exports_match_their_checkpoints():
    """Every int8 file in training/exports equals its QAT checkpoint's fake-quant model (same tolerance): through the
    fused QLinearConv where the CPU has an int8 dot product, else as the QDQ graph is written (graph optimizations off:
    AVX2's fused kernel saturates; sr int8-report does the same). That graph sums the same integer products in float32,
    so a hidden activation can land one step off where the rounding is a tie to float32 precision, and a float tail
    (no final rounding) shows each such step: measured on the shipped files, at most 1.53 grey levels, mean 0.034."""
    from sr.commands.bench import int8_dot_product
    so = ort.SessionOptions()
    reference = not int8_dot_product()
    if reference:
        so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    sidecars = sorted((HERE / 'exports').glob('*-int8.onnx.json'))
    for sc in sidecars:
        info = json.loads(sc.read_text())
        if 'blend' in info:  # several networks in one file: tests/test_blend.py rebuilds it from its checkpoints
            continue
        q, _ = load_qat(str(HERE / info['checkpoint']))
        q.float_tail = bool(info.get('float_tail'))
        sess = ort.InferenceSession(str(sc.with_suffix('')), so, providers=['CPUExecutionProvider'])
        x = smooth_images(1, 37, 29, 7)
        y = sess.run(['output'], {'input': x.numpy()})[0]
        with torch.no_grad():
            ref = q(x).clamp(0, 255).numpy()
        d = np.abs(y - ref)
        if reference:
            assert d.max() <= 2.0 and d.mean() <= 0.05, (sc.name, d.max(), d.mean())
        else:
            assert d.max() <= 1.0 + 1e-3 and (d > 1e-3).mean() <= 1e-3, (sc.name, d.max(), (d > 1e-3).mean())


def test_int8_receptive_radius_is_the_exact_tiling_halo(qmodel, tmp_path):
    """The engine tiles with a halo of receptiveRadius LR pixels: the int8 graph is as local as the float one
    (QLinearConv pads with the zero point, i.e. with 0 as the float conv does), so a tile's core equals the
    whole image's exactly, and one pixel less of halo is not enough."""
    _, q, scale = qmodel
    for float_tail in (False, True):
        out = str(tmp_path / f'm{float_tail}.onnx')
        q.float_tail = float_tail
        export_qdq(q, out)
        check_tiles(ort.InferenceSession(out, providers=['CPUExecutionProvider']), q.receptive_radius, scale)


def check_tiles(sess, r, scale):
    x = smooth_images(1, 40, 40, 11).numpy()
    whole = sess.run(['output'], {'input': x})[0]
    core = slice(15 * scale, 25 * scale)

    def tile(halo):
        y = sess.run(['output'], {'input': np.ascontiguousarray(x[:, :, 15 - halo:25 + halo, 15 - halo:25 + halo])})[0]
        return y[:, :, halo * scale:(halo + 10) * scale, halo * scale:(halo + 10) * scale]
    assert np.array_equal(tile(r), whole[:, :, core, core])
    assert np.abs(tile(r - 1) - whole[:, :, core, core]).max() >= 1.0


def test_qat_draws_crops_as_its_parent_did(tmp_path, qat_parent):
    """A parent trained on an image pyramid (sr train --hr-scales) is calibrated and fine-tuned on the same pyramid;
    a parent saved before the option existed keeps drawing full-size images (its batches unchanged)."""
    pk = torch.load(qat_parent, weights_only=False)
    pk['meta']['config'] = dict(pk['meta']['config'], hr_scales='0.5', flat_below=2.0, flat_keep=0.5)
    pyramid_parent = tmp_path / 'pyramid.pt'
    torch.save(pk, pyramid_parent)
    args = ['--iters', '0', '--batch', '2', '--patch', '16', '--calib-batches', '1', '--threads', '1']
    run_qat(tmp_path, '--name', 'old', '--from', str(qat_parent), *args)
    run_qat(tmp_path, '--name', 'pyr', '--from', str(pyramid_parent), *args)
    old = torch.load(tmp_path / 'old' / 'last.pt', weights_only=False)
    pyr = torch.load(tmp_path / 'pyr' / 'last.pt', weights_only=False)
    assert old['meta']['parent_sampling'] == {'hr_scales': [1.0], 'flat_below': 0.0, 'flat_keep': 1.0, 'val': 'BSD200'}
    assert pyr['meta']['parent_sampling'] == {'hr_scales': [0.5], 'flat_below': 2.0, 'flat_keep': 0.5, 'val': 'BSD200'}
    # the same seed draws other crops from the halved images: the calibrated activation scales differ
    assert not torch.equal(old['model']['log_act_scale'], pyr['model']['log_act_scale'])
