"""Quantization-aware fine-tuning of the folded PlainSR, and its QDQ (int8) ONNX export.

The network trained here is the exported graph: PlainSR's re-parameterised RepConv3 branches are
folded first (`PlainSR.fuse()`, the export path), so `QuantSR` holds exactly the plain convs that
onnxruntime runs, and the fake quantization sits where the QDQ graph has its Q/DQ pairs:

    input/255 -> Q(1/255, u8, zp 0) -> [ QLinearConv(int8 w per out channel, int32 bias) -> ReLU
      -> Q(s_i, u8, zp 0) ] x (n-1) -> QLinearConv (tail) -> Q(1/255, u8, zp 128) -> DQ
      -> + nearest residual (float) -> DepthToSpace -> *255 -> Clip

- weights: symmetric int8 per output channel, scale max|w_c| / 127 (onnxruntime's per-channel
  MinMax for weights), recomputed from the current weights every step;
- bias: int32 with scale s_in * s_w[c] (what QLinearConv adds to its accumulator);
- hidden activations (after ReLU): uint8, zero point 0 (so onnxruntime drops the ReLU: a Q with the
  type's minimum as zero point clips at 0 itself), one scale per tensor, learned (LSQ: the scale gets
  the gradient of the quantized value), initialised from training images by minimising the
  quantization MSE of each layer's activations;
- input: uint8 scale 1/255 zp 0: our inputs are integers 0..255, so this is exact;
- tail output (the correction to nearest upsampling, 0..1 units): uint8 scale 1/255 zp 128, i.e. a
  grid of whole grey levels from -128 to +127. The residual added to it is an integer grey level
  and the engine rounds the output to uint8 anyway, so rounding the correction to whole grey levels
  costs nothing beyond that final rounding (round(c + k) = round(c) + k for integer k); only
  corrections beyond +-127 grey levels saturate, and QAT sees that clipping.

The fake quantization is our own (round with a straight-through estimator) rather than
torch.ao.quantization's FakeQuantize modules, for two reasons. (1) The int8 file must reproduce the
trained model: torch.ao quantizes and dequantizes float tensors, so each conv runs in float32 on
dequantized values and its rounding ties fall differently from onnxruntime's integer accumulator and
requantization multiplier; measured on random-weight networks, that put outputs up to 4 grey levels
apart. QuantSR computes every quantized conv as QLinearConv does (integer-valued accumulator, then
round(acc * s_in * s_w / s_out)), which is the same function mathematically (so the same STE / LSQ
gradients) and matches onnxruntime exactly. (2) Fixed (not observed) scales for the input and the tail,
zero points fixed at 0/128 and an int32 bias with the product of the input and weight scales are
explicit here in a few lines, and the QDQ graph is written from the same float32 numbers (`export_qdq`).
"""
import copy
import math

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

from .models import PlainSR, build

U8_MAX = 255
W_MAX = 127  # symmetric int8 weights use -127..127
INPUT_SCALE = 1.0 / 255.0
TAIL_SCALE = 1.0 / 255.0
TAIL_ZP = 128


def round_ste(x: torch.Tensor) -> torch.Tensor:
    """round() forward, identity backward (straight-through estimator)."""
    return (x.round() - x).detach() + x


def fake_quant(x: torch.Tensor, scale: torch.Tensor, qmin: int, qmax: int) -> torch.Tensor:
    """Quantize-dequantize with zero point folded into qmin/qmax (q = clamp(round(x/s), qmin, qmax) * s).

    For a learned scale this is LSQ: d/ds is round(x/s) - x/s inside the range and qmin/qmax outside.
    The clamp passes no gradient to x outside the range (the clipped values stay clipped)."""
    return torch.clamp(round_ste(x / scale), qmin, qmax) * scale


def weight_scale(w: torch.Tensor) -> torch.Tensor:
    """Per-output-channel symmetric int8 scale, max|w_c| / 127 (detached: a MinMax observer)."""
    amax = w.detach().abs().amax(dim=(1, 2, 3)).clamp_min(1e-12)
    return amax / W_MAX


class QuantSR(nn.Module):
    """The folded PlainSR with fake quantization; `quant=False` runs the same weights in float."""

    def __init__(self, scale: int, convs):
        super().__init__()
        self.scale = scale
        self.convs = nn.ModuleList(convs)
        # log of the hidden activation scales (one per ReLU output); set by calibrate()
        self.log_act_scale = nn.Parameter(torch.zeros(len(self.convs) - 1))
        self.quant = True
        # float_tail: the tail conv's output is not requantized to whole grey levels (export_qdq writes the file so too)
        self.float_tail = False

    @classmethod
    def from_plain(cls, model: PlainSR) -> 'QuantSR':
        m = copy.deepcopy(model).float().fuse()
        convs = [layer.fused for layer in m.features] + [m.tail.fused]
        return cls(m.scale, convs)

    @classmethod
    def for_arch(cls, arch: str, scale: int) -> 'QuantSR':
        return cls.from_plain(build(arch, scale))

    @property
    def receptive_radius(self) -> int:
        return len(self.convs)  # one LR pixel per 3x3 conv (PlainSR: body + 2)

    def act_scales(self) -> torch.Tensor:
        return self.log_act_scale.exp()

    def input_scales(self) -> list:
        """Scale of each conv's (quantized) input: 1/255 for the first, the previous ReLU's for the others."""
        s = self.act_scales()
        return [torch.tensor(INPUT_SCALE, dtype=s.dtype)] + list(s.unbind(0))

    def integer_weights(self, i: int, s_in: torch.Tensor):
        """Conv i's int8 weights and int32 bias as integer-valued float tensors (STE gradients), and the
        per-output-channel weight scale; the bias scale is s_in * w_scale, what QLinearConv assumes."""
        conv = self.convs[i]
        sw = weight_scale(conv.weight)
        wq = torch.clamp(round_ste(conv.weight / sw[:, None, None, None]), -W_MAX, W_MAX)
        # int32 bias: no clamp needed (|b| / (s_in * sw) is far below 2^31). The bias scale is not
        # detached, so the (tiny) gradient reaching s_in through it is round(b/sb) - b/sb, not b/s_in.
        bq = round_ste(conv.bias / (s_in * sw))
        return wq, bq, sw

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x / 255.0
        if not self.quant:
            h = x
            for i, conv in enumerate(self.convs):
                h = conv(h)
                if i < len(self.convs) - 1:
                    h = F.relu(h)
        else:
            h = self._forward_int(x)
        h = h + x.repeat_interleave(self.scale * self.scale, dim=1)
        return F.pixel_shuffle(h, self.scale) * 255.0

    def _forward_int(self, x: torch.Tensor) -> torch.Tensor:
        """The quantized convs, computed the way onnxruntime's QLinearConv does: integer accumulator
        acc = sum(q_in * w_int8) + b_int32 (exact here too: integer-valued float32, partial sums far
        below 2^24), requantized as round_half_even(float32(acc) * (s_in * s_w / s_out)) + zero point,
        saturated to uint8. Mathematically this is fake quantization (quantize -> dequantize) of
        inputs, weights, bias and outputs; arranging it as onnxruntime does makes the rounding ties go
        the same way, so the int8 ONNX file reproduces this model (tests/test_quant.py)."""
        s_in = self.input_scales()
        n = len(self.convs)
        q = torch.clamp(round_ste(x / s_in[0]), 0, U8_MAX)  # exact for integer 0..255 input
        for i in range(n):
            wq, bq, sw = self.integer_weights(i, s_in[i])
            acc = F.conv2d(q, wq, bq, padding=1)
            last = i == n - 1
            if last and self.float_tail:  # what a float Conv of the dequantized input, weights and bias gives
                return acc * (s_in[i] * sw)[None, :, None, None]
            s_out = torch.tensor(TAIL_SCALE, dtype=sw.dtype) if last else s_in[i + 1]
            m = (s_in[i] * sw) / s_out  # QLinearConv: X_scale * W_scale[c] / Y_scale, float32
            # uint8 output: zero point 0 after ReLU (the clamp at 0 is the ReLU), 128 for the tail
            lo, hi = (-TAIL_ZP, U8_MAX - TAIL_ZP) if last else (0, U8_MAX)
            q = torch.clamp(round_ste(acc * m[None, :, None, None]), lo, hi)
        return q * TAIL_SCALE

    @torch.no_grad()
    def equalize(self, batches, power: float = 0.5, max_gain: float = 64.0) -> list:
        """Rescale hidden channels so their activation ranges are closer to each other, without changing
        the float function (cross-layer equalization, Nagel et al. 2019: relu(g*z) = g*relu(z) for g > 0).

        Channel c of hidden layer i, whose largest activation on `batches` is r_c of the layer's R, has its
        conv i output (weights, bias) multiplied by g_c = (R / r_c) ** power (at most max_gain) and conv
        i+1's input weights divided by g_c. The layer's one uint8 activation scale then gives small
        channels more levels; the per-output-channel weight scales absorb the gain exactly, and conv
        i+1's weights for amplified channels shrink against their output channel's largest weight (so
        `power` 0.5 splits the range between the two). Measured on ours-balanced-x2 (results/int8.md):
        activation quantization -0.033 -> -0.026 dB on Set5. Returns the gains per layer."""
        acts = None
        for x in batches:
            a = [t.amax(dim=(0, 2, 3)) for t in self.hidden_activations(x)]
            acts = a if acts is None else [torch.maximum(p, q) for p, q in zip(acts, a)]
        gains = []
        for i, r in enumerate(acts):
            g = torch.where(r > 1e-6, (r.max() / r.clamp_min(1e-6)) ** power, torch.ones_like(r)).clamp(1, max_gain)
            c0, c1 = self.convs[i], self.convs[i + 1]
            c0.weight.mul_(g[:, None, None, None])
            c0.bias.mul_(g)
            c1.weight.div_(g[None, :, None, None])
            gains.append(g)
        return gains

    @torch.no_grad()
    def weight_box(self, steps: float) -> list:
        """Per conv, the (low, high) bounds `steps` int8 grid steps (this network's per-channel scales)
        either side of its current weights; `clamp_weights` keeps the weights inside them.

        QAT of a network whose float function is already at its optimum (ours-balanced-x2,
        results/int8.md) can fix the int8 grid and still lose the bar by drifting away from that optimum.
        A box of one step lets the fine-tuning choose each weight's rounding (up or down, as AdaRound
        does) and move the biases and activation scales, but the float function stays within a rounding
        error of the parent's."""
        out = []
        for conv in self.convs:
            r = steps * weight_scale(conv.weight)[:, None, None, None]
            out.append((conv.weight - r, conv.weight + r))
        return out

    @torch.no_grad()
    def clamp_weights(self, box: list) -> None:
        for conv, (lo, hi) in zip(self.convs, box):
            conv.weight.copy_(torch.maximum(torch.minimum(conv.weight, hi), lo))

    @torch.no_grad()
    def hidden_activations(self, x: torch.Tensor) -> list:
        """Float (unquantized) ReLU outputs of every hidden conv, for calibration."""
        h, out = x / 255.0, []
        for conv in self.convs[:-1]:
            h = F.relu(conv(h))
            out.append(h)
        return out

    @torch.no_grad()
    def calibrate(self, batches) -> list:
        """Initial activation scales: per layer, the clipping value (a fraction of the max over the
        calibration batches) whose uint8 quantization has the least mean squared error.

        Layer by layer on the float network's activations (the inputs of later layers are not
        quantized here; the fine-tuning that follows sees the full quantized graph)."""
        acts = None
        for x in batches:
            a = [t.flatten() for t in self.hidden_activations(x)]
            acts = a if acts is None else [torch.cat([p, q]) for p, q in zip(acts, a)]
        chosen = []
        for i, a in enumerate(acts):
            if a.numel() > 4_000_000:  # a fixed random subset keeps the search cheap
                a = a[torch.randperm(a.numel(), generator=torch.Generator().manual_seed(i))[:4_000_000]]
            amax = a.max().clamp_min(1e-6)
            best = (math.inf, amax / U8_MAX)
            for frac in torch.linspace(0.2, 1.0, 81):
                s = amax * frac / U8_MAX
                err = (fake_quant(a, s, 0, U8_MAX) - a).pow(2).mean().item()
                if err < best[0]:
                    best = (err, s)
            self.log_act_scale[i] = best[1].log()
            chosen.append({'layer': i, 'max': round(amax.item(), 4), 'clip': round(best[1].item() * U8_MAX, 4)})
        return chosen

    @torch.no_grad()
    def integer_params(self) -> list:
        """Per conv: int8 weights, float32 per-channel weight scales, int32 bias, float32 bias scales,
        float32 input scale and the output (scale, zero point) -- the numbers the QDQ graph holds."""
        s_in = self.input_scales()
        act = self.act_scales()
        out = []
        for i in range(len(self.convs)):
            wq, bq, sw = self.integer_weights(i, s_in[i])
            last = i == len(self.convs) - 1
            out.append({
                'w': wq.to(torch.int8).numpy(), 'w_scale': sw.float().numpy(),
                'b': bq.to(torch.int32).numpy(), 'b_scale': (s_in[i] * sw).float().numpy(),
                'in_scale': np.float32(s_in[i].item()),
                'out_scale': np.float32(TAIL_SCALE if last else act[i].item()),
                'out_zp': np.uint8(TAIL_ZP if last else 0)})
        return out


def load_qat(path: str):
    """A QAT checkpoint (train_qat.py) -> (QuantSR in eval mode, meta)."""
    ck = torch.load(path, map_location='cpu', weights_only=False)
    meta = ck['meta']
    model = QuantSR.for_arch(meta['arch'], meta['scale'])
    model.load_state_dict(ck['model'])
    model.eval()
    return model, meta


def export_qdq(model: QuantSR, out: str, opset: int = 17, pad_channels: bool = True) -> dict:
    """Write the QDQ ONNX graph of a QuantSR: the float export of the same folded network (export.py's
    graph, I/O names and dynamic axes) with every conv's weight and bias replaced by
    DequantizeLinear(int8 per channel / int32) and Q->DQ pairs (uint8) on the conv inputs and the tail
    output, holding the scales the fake-quant model uses.

    pad_channels: onnxruntime's QLinearConv is several times slower when a conv has 3 input channels
    or an output channel count that is not a multiple of 16 (measured on this CPU at 256x256: 3->32
    5.2 ms vs 4->32 1.1 ms, 32->12 7 ms vs 32->16 2 ms, 64->27 20 ms vs 64->32 8 ms). So the first
    conv reads the input padded with a zero channel (a float Pad before its Q) through zero weights,
    and the tail computes zero extra channels (zero weights and bias, scale 1) that a Slice drops
    before the residual add: the same numbers, in the kernels' fast layouts.

    model.float_tail: the tail conv keeps its int8 weights, int32 bias and uint8 input but has no Q/DQ on its
    output, so onnxruntime runs it as a float Conv (1-2% of the multiply-adds) and the residual it adds is
    not rounded to whole grey levels. One pass rounds once at the end either way (the same image, except where
    a residual beyond +-127 grey levels no longer saturates); self-ensembled passes average unrounded
    residuals, as the float32 network's do (results/int8.md: ours-balanced-x2's int8 pair loses
    -0.024 / -0.029 / -0.009 dB against the float32 pair instead of -0.034 / -0.034 / -0.013). The file is
    then what the model computes with the same flag, so the flag is read here rather than passed beside it."""
    import warnings
    from pathlib import Path

    import onnx
    from onnx import TensorProto, helper, numpy_helper

    warnings.filterwarnings('ignore', category=DeprecationWarning)
    float_tail = model.float_tail
    params = model.integer_params()
    # the float graph of the dequantized weights: same structure as export.py writes
    fl = QuantSR(model.scale, copy.deepcopy(list(model.convs)))
    fl.quant = False
    wrapped = _Clamped(fl).eval()
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    x = torch.rand(1, 3, 32, 40) * 255
    torch.onnx.export(wrapped, (x,), out, input_names=['input'], output_names=['output'],
                      dynamic_axes={'input': {0: 'n', 2: 'h', 3: 'w'},
                                    'output': {0: 'n', 2: 'sh', 3: 'sw'}},
                      opset_version=opset, dynamo=False)
    m = onnx.load(out)
    g = m.graph
    convs = [n for n in g.node if n.op_type == 'Conv']
    assert len(convs) == len(params), (len(convs), len(params))
    inits = {t.name: t for t in g.initializer}
    consumers = {}
    for n in g.node:
        for k, name in enumerate(n.input):
            consumers.setdefault(name, []).append((n, k))
    producer = {o: n for n in g.node for o in n.output}
    new_nodes = {}  # node name -> nodes to insert before it
    new_inits = []

    def const(name, arr):
        new_inits.append(numpy_helper.from_array(np.asarray(arr), name))
        return name

    def qdq(tensor, scale, zp, tag, before):
        """Insert Q->DQ on `tensor`; return the DQ output name."""
        s = const(f'{tag}.scale', np.float32(scale))
        z = const(f'{tag}.zero_point', np.uint8(zp))
        qn = helper.make_node('QuantizeLinear', [tensor, s, z], [f'{tag}.q'], name=f'{tag}/Q')
        dn = helper.make_node('DequantizeLinear', [f'{tag}.q', s, z], [f'{tag}.dq'], name=f'{tag}/DQ')
        new_nodes.setdefault(before.name, []).extend([qn, dn])
        return f'{tag}.dq'

    for i, (conv, p) in enumerate(zip(convs, params)):
        tag = f'conv{i}'
        # weights and bias: int8 / int32 initializers + DequantizeLinear (axis 0 = output channel)
        wname, bname = conv.input[1], conv.input[2]
        for old in (wname, bname):
            g.initializer.remove(inits[old])
        last = i == len(convs) - 1
        cout, cin = p['w'].shape[:2]
        pad_in = (-cin) % 4 if pad_channels and i == 0 else 0
        pad_out = (-cout) % 16 if pad_channels and last and not float_tail else 0
        if pad_in or pad_out:
            p = dict(p, w=np.pad(p['w'], ((0, pad_out), (0, pad_in), (0, 0), (0, 0))),
                     w_scale=np.concatenate([p['w_scale'], np.ones(pad_out, np.float32)]),
                     b=np.concatenate([p['b'], np.zeros(pad_out, np.int32)]),
                     b_scale=np.concatenate([p['b_scale'], np.full(pad_out, p['in_scale'], np.float32)]))
        wq = const(f'{tag}.w_int8', p['w'])
        ws = const(f'{tag}.w_scale', p['w_scale'])
        wz = const(f'{tag}.w_zero_point', np.zeros(len(p['w_scale']), np.int8))
        bq = const(f'{tag}.b_int32', p['b'])
        bs = const(f'{tag}.b_scale', p['b_scale'])
        bz = const(f'{tag}.b_zero_point', np.zeros(len(p['b_scale']), np.int32))
        new_nodes.setdefault(conv.name, []).extend([
            helper.make_node('DequantizeLinear', [wq, ws, wz], [f'{tag}.w_dq'], name=f'{tag}/w_DQ', axis=0),
            helper.make_node('DequantizeLinear', [bq, bs, bz], [f'{tag}.b_dq'], name=f'{tag}/b_DQ', axis=0)])
        conv.input[1], conv.input[2] = f'{tag}.w_dq', f'{tag}.b_dq'
        # quantized input: the Div output for the first conv, the previous ReLU's output for the others
        src = conv.input[0]
        assert producer[src].op_type == ('Div' if i == 0 else 'Relu'), producer[src].op_type
        if pad_in:  # zero input channels (float, before the Q: quantized 0 is exactly 0)
            pads = const('input_channel_pads', np.array([0, 0, 0, 0, 0, pad_in, 0, 0], np.int64))
            new_nodes.setdefault(conv.name, []).append(
                helper.make_node('Pad', [src, pads], ['input_padded'], name='input_channel_pad', mode='constant'))
            src = 'input_padded'
        conv.input[0] = qdq(src, p['in_scale'], 0, f'act{i}', conv)
        if last:  # tail output -> Q/DQ [-> Slice off the padding channels] -> Add
            t = conv.output[0]
            (add, k), = consumers[t]
            assert add.op_type == 'Add'
            if not float_tail:
                t = qdq(t, p['out_scale'], p['out_zp'], 'tail_out', add)
            if pad_out:
                new_nodes[add.name].append(helper.make_node(
                    'Slice', [t, const('tail_slice.starts', np.array([0], np.int64)),
                              const('tail_slice.ends', np.array([cout], np.int64)),
                              const('tail_slice.axes', np.array([1], np.int64))], ['tail_out.sliced'],
                    name='tail_slice'))
                t = 'tail_out.sliced'
            add.input[k] = t
        else:
            (relu, _), = consumers[conv.output[0]]
            assert relu.op_type == 'Relu' and abs(p['out_scale'] - params[i + 1]['in_scale']) == 0
    nodes = list(g.node)
    del g.node[:]
    for n in nodes:
        g.node.extend(new_nodes.get(n.name, []))
        g.node.append(n)
    g.initializer.extend(new_inits)
    onnx.checker.check_model(m)
    onnx.save(m, out)
    tail = {'tail': 'float32'} if float_tail else {
        'tail_scale': float(params[-1]['out_scale']), 'tail_zero_point': int(params[-1]['out_zp'])}
    return {'convs': len(convs), 'act_scales': [float(p['out_scale']) for p in params[:-1]], **tail,
            'padded_channels': {'input': int((-params[0]['w'].shape[1]) % 4) if pad_channels else 0,
                                'tail_output': int((-params[-1]['w'].shape[0]) % 16)
                                if pad_channels and not float_tail else 0}}


class _Clamped(nn.Module):
    def __init__(self, net):
        super().__init__()
        self.net = net

    def forward(self, x):
        return self.net(x).clamp(0.0, 255.0)


def ort_optimized_ops(path: str, level: str = 'all') -> dict:
    """Op types (with counts) of the graph onnxruntime actually runs after its optimizations: the
    QDQ groups must have become QLinearConv (or ConvInteger), with no float Conv left."""
    import collections
    import os
    import tempfile

    import onnx
    import onnxruntime as ort
    so = ort.SessionOptions()
    so.graph_optimization_level = {'all': ort.GraphOptimizationLevel.ORT_ENABLE_ALL,
                                   'extended': ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED}[level]
    with tempfile.TemporaryDirectory() as d:
        so.optimized_model_filepath = os.path.join(d, 'opt.onnx')
        ort.InferenceSession(path, so, providers=['CPUExecutionProvider'])
        m = onnx.load(so.optimized_model_filepath)
    return dict(collections.Counter(n.op_type for n in m.graph.node))
