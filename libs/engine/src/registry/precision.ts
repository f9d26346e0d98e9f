import type { NetworkRegistry } from './network-registry';

/** The arithmetic a network's ONNX file runs in. */
export type Precision = 'float32' | 'int8';
export const PRECISIONS: readonly Precision[] = ['float32', 'int8'];

/**
 * UPSCALE_ENGINE_PRECISION. `auto` (the default) runs the int8 networks where the CPU has an int8 dot-product
 * instruction and their float32 parents elsewhere; `float32` always runs the parents; `int8` runs the int8
 * networks on any CPU (docs/engine.md, "Precision").
 */
export type PrecisionSetting = 'auto' | Precision;
export const PRECISION_SETTINGS: readonly PrecisionSetting[] = ['auto', ...PRECISIONS];

/**
 * x86 flags of the instructions ONNX Runtime's quantized convolutions (MLAS) use for u8 x s8 products with 32-bit
 * sums: AVX512-VNNI, AVX-VNNI (and AMX on the CPUs that have it). Without them MLAS falls back to AVX2's
 * vpmaddubsw, whose 16-bit intermediate sums saturate on some inputs (onnxruntime's quantization docs, "reduce
 * range"): the int8 networks were measured (training/results/int8.md) on VNNI kernels only, so only there are they
 * the quality their model cards state.
 */
const INT8_DOT_PRODUCT_FLAGS = ['avx512_vnni', 'avx_vnni', 'amx_int8'];

/** Whether the CPU described by /proc/cpuinfo text has an int8 dot-product instruction (all cores must). */
export function hasInt8DotProduct(cpuinfo: string): boolean {
  const flagLines = cpuinfo.split('\n').filter((l) => /^flags\s*:/.test(l));
  if (flagLines.length === 0) return false;
  return flagLines.every((line) => {
    const flags = new Set(
      line
        .slice(line.indexOf(':') + 1)
        .trim()
        .split(/\s+/),
    );
    return INT8_DOT_PRODUCT_FLAGS.some((f) => flags.has(f));
  });
}

/** The precision the engine runs: the setting, with `auto` decided by the CPU. Pure. */
export function effectivePrecision(setting: PrecisionSetting, cpuHasInt8DotProduct: boolean): Precision {
  if (setting === 'auto') return cpuHasInt8DotProduct ? 'int8' : 'float32';
  return setting;
}

/**
 * The network that runs for registry id `id` at `precision`: an int8 network gives way to its float32 stand-in
 * (`atFloat32`, else its parent) when the engine runs float32; every other network runs as listed (a float32
 * network without an int8 version runs in float32 at either precision). Pure.
 */
export function networkAtPrecision(registry: NetworkRegistry, id: string, precision: Precision): string {
  const entry = registry.networks[id];
  if (precision === 'float32' && entry?.precision === 'int8') {
    const standIn = entry.atFloat32 ?? entry.float32;
    if (standIn) return standIn;
  }
  return id;
}
