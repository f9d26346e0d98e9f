import { existsSync, readFileSync } from 'node:fs';
import { hasInt8DotProduct } from '@upscaler/engine';

/**
 * Whether this CPU has the int8 dot product (VNNI, AMX) the int8 networks were measured on
 * (libs/engine/src/registry/precision.ts). Without it ONNX Runtime's int8 convolutions fall back to AVX2 kernels whose
 * 16-bit sums saturate: on an AMD EPYC without VNNI the int8 networks scored 0.07-0.29 dB under their cards on Set5,
 * and 35-42 dB against their float32 parents. There the service's `auto` precision runs the float32 networks, so the
 * int8 networks' quality is not what a user gets, and the cases that measure it are skipped (listed as skipped).
 */
export const INT8_KERNELS = existsSync('/proc/cpuinfo') && hasInt8DotProduct(readFileSync('/proc/cpuinfo', 'utf8'));

/** `it` where the int8 networks' numbers hold (INT8_KERNELS), `it.skip` elsewhere. */
export const itWithInt8Kernels: jest.It = INT8_KERNELS ? it : it.skip;
