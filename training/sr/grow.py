"""Function-preserving growth of a trained PlainSR into a wider and/or deeper one (Net2Net idea).

A bigger network warm-started this way computes exactly the small network's output at step 0, so
training spends its CPU on what the extra capacity can add instead of relearning the basics:

- wider: old channels keep their weights and ignore the new channels (zero weights from new to
  old); new channels read every input with a fresh initialisation, and the tail reads them through
  zero weights, so they change nothing until the gradient moves those weights;
- deeper: extra body layers start as the identity (3x3 and 1x1 branches zero, the identity branch
  of RepConv3 alone), and ReLU of a post-ReLU feature map is the map itself.
"""
import torch

from .models import PlainSR, RepConv3


@torch.no_grad()
def _embed(dst: RepConv3, src: RepConv3, zero_new_inputs_of_old: bool = True, zero_new_outputs: bool = False):
    for name in ('k3', 'k1'):
        d, s = getattr(dst, name), getattr(src, name)
        o, i = s.weight.shape[:2]
        if zero_new_outputs:
            d.weight.zero_()
            d.bias.zero_()
        if zero_new_inputs_of_old:
            d.weight[:o, i:] = 0
        d.weight[:o, :i] = s.weight
        d.bias[:o] = s.bias


@torch.no_grad()
def grow(small: PlainSR, big: PlainSR) -> PlainSR:
    """Copy `small` into `big` (same scale, channels and body >= small's) so both compute the same function."""
    if big.scale != small.scale or big.channels < small.channels or big.body < small.body:
        raise ValueError('grow: the target must have the same scale and at least the channels and body')
    n_old = len(small.features)
    for k, layer in enumerate(big.features):
        if k < n_old:
            _embed(layer, small.features[k])
        else:  # a new body layer: identity
            for conv in (layer.k3, layer.k1):
                conv.weight.zero_()
                conv.bias.zero_()
    # tail: the old channels as before, the new channels through zero weights
    _embed(big.tail, small.tail, zero_new_outputs=True)
    if big.tail.eye is not None and small.tail.eye is None:
        # channels == 3*s*s (48 at x4) gives the big tail an identity branch the small one lacks
        big.tail.k1.weight.sub_(big.tail.eye)
    elif small.tail.eye is not None and big.tail.eye is None:
        # the other way round (c48 -> c64 at x4): the small tail's identity branch becomes plain 1x1 weights
        o = small.tail.eye.shape[0]
        big.tail.k1.weight[:, :o].add_(small.tail.eye)
    return big
