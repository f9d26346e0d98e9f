"""Efficient pixel-shuffle CNNs for CPU inference.

`PlainSR` is a plain stack of 3x3 convolutions + ReLU on the LR grid, a 3x3 conv to 3*s*s channels,
a nearest-neighbour residual (the input repeated s*s times, i.e. the net only learns the correction
to nearest upsampling) and a pixel shuffle (ONNX DepthToSpace). Plain 3x3 stacks run faster per
parameter on CPU than attention/distillation blocks (IMDN/RFDN), which matters on 2 cores.

Training uses re-parameterisable blocks (RepVGG/ECBSR idea): each 3x3 conv is trained as
3x3 + 1x1 + identity branches and folded into one 3x3 conv for export (`fuse()`), so the
exported graph is exactly the plain stack. Receptive field: (body + 2) 3x3 convs ->
radius body+2 LR pixels.

Value range: input and output are RGB on 0..255 (the engine's I/O convention).
"""
import re

import torch
import torch.nn as nn
import torch.nn.functional as F


class RepConv3(nn.Module):
    """3x3 conv trained with parallel 1x1 and identity branches (RepVGG/ECBSR re-parameterisation).

    The branches are linear, so the forward pass folds them into one 3x3 kernel on the fly: the
    gradient still reaches every branch but each step costs a single convolution (fast on CPU).
    fuse() freezes the folded kernel into a plain Conv2d for export.
    """

    def __init__(self, cin: int, cout: int):
        super().__init__()
        self.cin, self.cout = cin, cout
        self.k3 = nn.Conv2d(cin, cout, 3, padding=1)
        self.k1 = nn.Conv2d(cin, cout, 1)
        if cin == cout:
            self.register_buffer('eye', torch.eye(cout).reshape(cout, cout, 1, 1), persistent=False)
        else:
            self.eye = None
        self.fused = None

    def folded(self):
        w1 = self.k1.weight if self.eye is None else self.k1.weight + self.eye
        return self.k3.weight + F.pad(w1, (1, 1, 1, 1)), self.k3.bias + self.k1.bias

    def forward(self, x):
        if self.fused is not None:
            return self.fused(x)
        w, b = self.folded()
        return F.conv2d(x, w, b, padding=1)

    @torch.no_grad()
    def fuse(self):
        w, b = self.folded()
        conv = nn.Conv2d(self.cin, self.cout, 3, padding=1, dtype=w.dtype)
        conv.weight.copy_(w)
        conv.bias.copy_(b)
        self.fused = conv


class RepSR(nn.Module):
    """What PlainSR and CompactSR share: RepConv3 layers fused for export, and a receptive radius of body + 2 LR
    pixels (the first conv, `body` convs and the tail, 3x3 each)."""
    body: int

    def fuse(self):
        for m in self.modules():
            if isinstance(m, RepConv3):
                m.fuse()
        return self

    @property
    def receptive_radius(self) -> int:
        """LR pixels on each side that influence an output pixel (halo for tiling)."""
        return self.body + 2


class PlainSR(RepSR):
    def __init__(self, scale: int, channels: int = 32, body: int = 3):
        super().__init__()
        self.scale, self.channels, self.body = scale, channels, body
        layers = [RepConv3(3, channels)]
        layers += [RepConv3(channels, channels) for _ in range(body)]
        self.features = nn.ModuleList(layers)
        self.tail = RepConv3(channels, 3 * scale * scale)
        self.shuffle = nn.PixelShuffle(scale)
        # start as exact nearest upsampling: the network learns only the correction
        for conv in (self.tail.k3, self.tail.k1):
            nn.init.zeros_(conv.weight)
            nn.init.zeros_(conv.bias)

    def forward(self, x):
        """x: N x 3 x H x W float RGB on 0..255 -> N x 3 x sH x sW on (roughly) 0..255."""
        x = x / 255.0
        h = x
        for layer in self.features:
            h = F.relu(layer(h))
        h = self.tail(h)
        # nearest-upsampling residual: channel c*s*s + k of the shuffle input belongs to colour c
        h = h + x.repeat_interleave(self.scale * self.scale, dim=1)
        return self.shuffle(h) * 255.0


class CompactSR(RepSR):
    """SRVGGNetCompact-style network (Real-ESRGAN's compact net, Wang et al. 2021, BSD-3-Clause): a 3x3 conv from
    RGB, `body` 3x3 convs of `channels`, each followed by PReLU (one slope per channel), a 3x3 conv to 3*s*s
    channels, a pixel shuffle, plus the nearest-upsampled input (channel repeat before the shuffle, as PlainSR).
    The convs are RepConv3 (3x3 + 1x1 + identity while training, one 3x3 after fuse()), so the exported graph is
    Conv / PRelu / Add / DepthToSpace. Used as the student of the sharp tier (distill.py). Input / output RGB 0..255."""

    def __init__(self, scale: int, channels: int = 48, body: int = 12):
        super().__init__()
        self.scale, self.channels, self.body = scale, channels, body
        self.features = nn.ModuleList([RepConv3(3, channels)] + [RepConv3(channels, channels) for _ in range(body)])
        self.acts = nn.ModuleList([nn.PReLU(channels, init=0.1) for _ in range(body + 1)])
        self.tail = RepConv3(channels, 3 * scale * scale)
        self.shuffle = nn.PixelShuffle(scale)
        for conv in (self.tail.k3, self.tail.k1):  # start as exact nearest upsampling
            nn.init.zeros_(conv.weight)
            nn.init.zeros_(conv.bias)

    def forward(self, x):
        x = x / 255.0
        h = x
        for conv, act in zip(self.features, self.acts):
            h = act(conv(h))
        h = self.tail(h) + x.repeat_interleave(self.scale * self.scale, dim=1)
        return self.shuffle(h) * 255.0


ARCHS = {
    # name: (class, kwargs) -- tiers in the issue: fast (<= 300 ms/MP x2, <= 150 x4), balanced
    'plain_c32_b3': (PlainSR, dict(channels=32, body=3)),
    'plain_c32_b4': (PlainSR, dict(channels=32, body=4)),
    'plain_c48_b6': (PlainSR, dict(channels=48, body=6)),
    'plain_c64_b8': (PlainSR, dict(channels=64, body=8)),
    'plain_c64_b10': (PlainSR, dict(channels=64, body=10)),
    'plain_c64_b12': (PlainSR, dict(channels=64, body=12)),
    'plain_c64_b14': (PlainSR, dict(channels=64, body=14)),
    'plain_c16_b2': (PlainSR, dict(channels=16, body=2)),
}


def build(arch: str, scale: int) -> nn.Module:
    """A network from ARCHS, any `plain_c<channels>_b<body>` (the table names the ones shipped or tried) or any
    `compact_c<channels>_b<body>` (CompactSR: PReLU, the sharp tier's student)."""
    if arch in ARCHS:
        cls, kw = ARCHS[arch]
        return cls(scale=scale, **kw)
    m = re.fullmatch(r'compact_c(\d+)_b(\d+)', arch)
    if m:
        return CompactSR(scale=scale, channels=int(m[1]), body=int(m[2]))
    m = re.fullmatch(r'plain_c(\d+)_b(\d+)', arch)
    if not m:
        raise ValueError(f'unknown arch {arch!r}: one of {sorted(ARCHS)} or plain_c<channels>_b<body>')
    return PlainSR(scale=scale, channels=int(m[1]), body=int(m[2]))


def count_params(model: nn.Module) -> int:
    return sum(p.numel() for p in model.parameters())
