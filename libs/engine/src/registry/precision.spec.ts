import { effectivePrecision, hasInt8DotProduct, networkAtPrecision } from './precision';
import type { NetworkRegistry } from './network-registry';

const cpu = (...flagLines: string[]) => flagLines.map((f, i) => `processor\t: ${i}\nmodel name\t: X\nflags\t\t: ${f}\n`).join('\n');

describe('precision (int8 where the CPU has VNNI, float32 parents elsewhere)', () => {
  it('finds an int8 dot-product instruction only when every core lists AVX512-VNNI, AVX-VNNI or AMX-INT8', () => {
    expect(hasInt8DotProduct(cpu('fpu sse2 avx2 avx512f avx512_vnni avx512_bf16', 'fpu sse2 avx2 avx512f avx512_vnni avx512_bf16'))).toBe(
      true,
    );
    expect(hasInt8DotProduct(cpu('fpu avx2 avx_vnni'))).toBe(true);
    expect(hasInt8DotProduct(cpu('fpu avx2 amx_int8 amx_tile'))).toBe(true);
    // AVX2 / AVX512F without VNNI: MLAS's u8s8 kernels saturate 16-bit sums there.
    expect(hasInt8DotProduct(cpu('fpu sse2 avx2 fma avx512f avx512bw'))).toBe(false);
    expect(hasInt8DotProduct(cpu('avx512_vnni', 'avx2'))).toBe(false);
    // No flags line (another OS, an ARM cpuinfo with "Features"): unknown, so no.
    expect(hasInt8DotProduct('')).toBe(false);
    expect(hasInt8DotProduct('processor\t: 0\nFeatures\t: fp asimd asimddp\n')).toBe(false);
  });

  it('auto follows the CPU; float32 and int8 are what they say', () => {
    expect([effectivePrecision('auto', true), effectivePrecision('auto', false)]).toEqual(['int8', 'float32']);
    expect([effectivePrecision('float32', true), effectivePrecision('int8', false)]).toEqual(['float32', 'int8']);
  });

  it('an int8 network gives way to its float32 stand-in (atFloat32, else its parent) at float32; other networks run as listed', () => {
    const entry = { file: 'f.onnx', scale: 2, receptiveRadius: 6, tile: 256 };
    const registry: NetworkRegistry = {
      defaultQuality: 'fast',
      networks: {
        f32: entry,
        i8: { ...entry, precision: 'int8', float32: 'f32' },
        plain: entry,
        f32pair: { ...entry, selfEnsemble: [0, 6] },
        i8pair: { ...entry, selfEnsemble: [0, 6], precision: 'int8', float32: 'f32pair', atFloat32: 'f32' },
      },
      tiers: { fast: { 2: 'i8' }, balanced: { 2: 'plain' }, best: { 2: 'plain' }, sharp: { 2: 'plain' } },
    };
    expect(['i8', 'f32', 'plain', 'i8pair', 'unknown'].map((id) => networkAtPrecision(registry, id, 'int8'))).toEqual([
      'i8',
      'f32',
      'plain',
      'i8pair',
      'unknown',
    ]);
    // The int8 pair's float32 engine runs one float32 pass (atFloat32), not the float32 pair it is scored against.
    expect(['i8', 'f32', 'plain', 'i8pair', 'unknown'].map((id) => networkAtPrecision(registry, id, 'float32'))).toEqual([
      'f32',
      'f32',
      'plain',
      'f32',
      'unknown',
    ]);
  });
});
