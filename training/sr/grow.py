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
    # Identity branches are implicit (RepConv3 has `eye` only when cin == cout), so the two layers can differ:
    # the old outputs must see src's identity and not dst's. Where both have one the correction is exactly 0.
    o, i = src.k1.weight.shape[:2]
    correction = torch.zeros_like(dst.k1.weight[:o])
    if src.eye is not None:
        correction[:, :i] += src.eye
    if dst.eye is not None:
        correction -= dst.eye[:o]
    dst.k1.weight[:o].add_(correction)


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
    # tail: the old channels as before, the new channels through zero weights (at x4 the tail of a 48-channel
    # network, 48 -> 48, has an identity branch and a 32- or 64-channel one has none: _embed accounts for it)
    _embed(big.tail, small.tail, zero_new_outputs=True)
    return big
