"""Where a QAT (or calibration-only) checkpoint's int8 loss comes from, on Set5 (bicubic), in PyTorch.

  python -m sr int8-sensitivity runs/x2_bal64b12_qat2/best.pt

Prints the Set5 PSNR of the checkpoint's weights unquantized, fully quantized, with only the activations
or only the weights quantized (a conv whose input and weights are both quantized gets its int32 bias), and,
per conv, what un-quantizing just that conv's input activation or just its weights gives back. The quantization here is fake quantization in float (`mixed_forward`), the same
function as QuantSR's integer-form forward up to rounding ties (tests/test_quant.py), so a layer whose
un-quantizing gives back most of the loss is a candidate for a float32 layer in a mixed export; a loss
spread evenly over the layers is not (results/int8.md, ours-balanced-x2).
"""
import sys
from pathlib import Path

import torch
import torch.nn.functional as F

from sr.data import set_images
from sr.quant import TAIL_SCALE, TAIL_ZP, U8_MAX, QuantSR, fake_quant, load_qat
from sr.commands.train import eval_pairs, quick_eval


def mixed_forward(q: QuantSR, x: torch.Tensor, act_layers, weight_layers, tail: bool) -> torch.Tensor:
    """q's network with the input activations of the convs in `act_layers` and the weights of the convs in
    `weight_layers` fake-quantized (its scales), the tail output on its whole-grey-level grid if `tail`."""
    x = x / 255.0
    s_in = q.input_scales()
    h, n = x, len(q.convs)
    for i, conv in enumerate(q.convs):
        if i in act_layers:
            h = fake_quant(h, s_in[i], 0, U8_MAX)
        w, b = conv.weight, conv.bias
        if i in weight_layers:  # QuantSR's own int8 weights (and int32 bias, where the input is quantized too)
            wq, bq, sw = q.integer_weights(i, s_in[i])
            w = wq * sw[:, None, None, None]
            if i in act_layers:
                b = bq * (s_in[i] * sw)
        h = F.conv2d(h, w, b, padding=1)
        if i < n - 1:
            h = F.relu(h)
    if tail:
        h = fake_quant(h, torch.tensor(TAIL_SCALE), -TAIL_ZP, U8_MAX - TAIL_ZP)
    h = h + x.repeat_interleave(q.scale * q.scale, dim=1)
    return F.pixel_shuffle(h, q.scale) * 255.0


class Mixed(torch.nn.Module):
    def __init__(self, q: QuantSR, act_layers, weight_layers, tail=True):
        super().__init__()
        self.q, self.act, self.weights, self.tail = q, set(act_layers), set(weight_layers), tail

    def forward(self, x):
        return mixed_forward(self.q, x, self.act, self.weights, self.tail)


def main():
    q, meta = load_qat(sys.argv[1])
    torch.set_num_threads(int(sys.argv[2]) if len(sys.argv) > 2 else 1)
    scale = meta['scale']
    set5 = eval_pairs(set_images('Set5', None), scale, 'bicubic', meta['parent_seed'])
    layers = range(len(q.convs))

    def psnr(act, weights, tail=True):
        return quick_eval(Mixed(q, act, weights, tail), scale, set5)

    full = psnr(layers, layers)
    print(f'Set5: unquantized {psnr([], [], False)}, int8 {full}, activations only {psnr(layers, [])}, '
          f'weights only {psnr([], layers, False)}', flush=True)
    print('conv | int8 but this input activation | int8 but these weights')
    for i in layers:
        others = [j for j in layers if j != i]
        print(f'{i} | {psnr(others, layers) - full:+.3f} | {psnr(layers, others) - full:+.3f}', flush=True)


if __name__ == '__main__':
    main()
