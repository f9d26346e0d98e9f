import { hostHasInt8DotProduct } from '@upscaler/engine';

/**
 * Whether this CPU has the int8 dot product (VNNI, AMX) the int8 networks were measured on
 * (libs/engine/src/registry/precision.ts). Without it ONNX Runtime's int8 convolutions fall back to AVX2 kernels whose
 * 16-bit sums saturate: on an AMD EPYC without VNNI the int8 networks scored 0.07-0.29 dB under their cards on Set5,
 * and 35-42 dB against their float32 parents. There the service's `auto` precision runs the float32 networks, so the
 * int8 networks' quality is not what a user gets, and the cases that measure it are skipped (listed as skipped).
 */
export const INT8_KERNELS = hostHasInt8DotProduct();

/**
 * `it` where the int8 networks' numbers hold (INT8_KERNELS), `it.skip` elsewhere: a hardware condition, not a test
 * left unfinished. The skipped cases are reported by name, and `auto precision follows the CPU` runs everywhere.
 */
export const itWithInt8Kernels: jest.It = INT8_KERNELS ? it : it.skip;
/** `itWithInt8Kernels` for an int8 case, `it` for a float32 one. */
export const itAt = (precision: 'int8' | 'float32'): jest.It => (precision === 'int8' ? itWithInt8Kernels : it);
