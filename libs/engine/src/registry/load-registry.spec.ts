import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_REGISTRY } from './default-registry';
import { readRegistry, resolveRegistry, withDefaultTiers } from './load-registry';
import type { NetworkRegistry } from './network-registry';

const dir = mkdtempSync(join(tmpdir(), 'registry-'));
for (const f of ['a2.onnx', 'a3.onnx', 'a4.onnx', 'photo2.onnx', 'a2-int8.onnx']) writeFileSync(join(dir, f), '');
const entry = (file: string, scale: number) => ({ file, scale, receptiveRadius: 6, tile: 256 });
const tier = { 2: 'a2', 3: 'a3', 4: 'a4' };
const base: NetworkRegistry = {
  defaultQuality: 'fast',
  networks: {
    a2: entry('a2.onnx', 2),
    a3: entry('a3.onnx', 3),
    a4: entry('a4.onnx', 4),
    photo2: entry('photo2.onnx', 2),
    ghost2: entry('ghost2.onnx', 2),
  },
  tiers: { fast: tier, balanced: tier, best: tier, sharp: tier },
};

describe('resolveRegistry', () => {
  it('resolves every tier network and every JPEG variant to an absolute path', () => {
    const r = resolveRegistry({ ...base, jpegVariants: { fast: { 2: { network: 'photo2', maxJpegQuality: 90 } } } }, dir);
    expect([...r.keys()].sort()).toEqual(['a2', 'a3', 'a4', 'photo2']);
    expect(r.get('photo2')?.path).toBe(join(dir, 'photo2.onnx'));
  });

  it('refuses a JPEG variant that is unknown, of another scale, missing on disk or with a bad quality bound', () => {
    expect(() => resolveRegistry({ ...base, jpegVariants: { fast: { 2: { network: 'nope', maxJpegQuality: 90 } } } }, dir)).toThrow(
      'registry: tier fast has no JPEG variant for x2',
    );
    expect(() => resolveRegistry({ ...base, jpegVariants: { fast: { 4: { network: 'photo2', maxJpegQuality: 90 } } } }, dir)).toThrow(
      'registry: photo2 is x2, listed under x4',
    );
    expect(() => resolveRegistry({ ...base, jpegVariants: { best: { 2: { network: 'ghost2', maxJpegQuality: 90 } } } }, dir)).toThrow(
      `engine model ${join(dir, 'ghost2.onnx')} is missing`,
    );
    expect(() => resolveRegistry({ ...base, jpegVariants: { fast: { 2: { network: 'photo2', maxJpegQuality: 101 } } } }, dir)).toThrow(
      'registry: the JPEG variant of fast x2 needs an integer maxJpegQuality in 1..100',
    );
  });

  it('refuses a tier without a network at some scale', () => {
    expect(() => resolveRegistry({ ...base, tiers: { ...base.tiers, best: { 2: 'a2', 3: 'a3' } } }, dir)).toThrow(
      'registry: tier best has no network for x4',
    );
  });

  it('lists one ONNX file twice, with and without self-ensembling, and refuses a selfEnsemble that is neither a boolean nor a transform list', () => {
    const twice = {
      ...base,
      networks: { ...base.networks, a2e: { ...entry('a2.onnx', 2), selfEnsemble: true } },
      tiers: { ...base.tiers, best: { ...tier, 2: 'a2e' } },
    };
    const r = resolveRegistry(twice, dir);
    expect([r.get('a2')?.path, r.get('a2e')?.path, r.get('a2')?.selfEnsemble, r.get('a2e')?.selfEnsemble]).toEqual([
      join(dir, 'a2.onnx'),
      join(dir, 'a2.onnx'),
      undefined,
      true,
    ]);
    const withEnsemble = (selfEnsemble: unknown) => ({
      ...twice,
      networks: { ...twice.networks, a2e: { ...entry('a2.onnx', 2), selfEnsemble: selfEnsemble as number[] } },
    });
    expect(resolveRegistry(withEnsemble([0, 6]), dir).get('a2e')?.selfEnsemble).toEqual([0, 6]);
    for (const bad of [8, [0], [6, 0], [0, 6, 2], [0, 0]]) {
      expect(() => resolveRegistry(withEnsemble(bad), dir)).toThrow(
        'registry: a2e selfEnsemble must be true, false or a list of 2, 4 or 8 distinct transforms 0..7, the identity (0) first',
      );
    }
  });

  it('a registry file written before the sharp tier existed runs sharp as the built-in registry does', () => {
    const { sharp: _omitted, ...older } = base.tiers;
    const file = join(dir, 'older.registry.json');
    writeFileSync(file, JSON.stringify({ ...base, tiers: older }));
    const read = readRegistry(file);
    expect(read.tiers.sharp).toEqual(DEFAULT_REGISTRY.tiers.sharp);
    expect(read.networks['realesrgan-x4plus-to-x2']).toEqual(DEFAULT_REGISTRY.networks['realesrgan-x4plus-to-x2']);
    expect(read.tiers.fast).toEqual(tier);
    // A registry that names its own sharp networks keeps them.
    expect(withDefaultTiers(base).tiers.sharp).toBe(tier);
  });

  it('a registry file written before the content hint existed: the sharp tier it takes from the built-in one comes with its illustration networks', () => {
    const { sharp: _omitted, ...older } = base.tiers;
    const file = join(dir, 'older-content.registry.json');
    writeFileSync(file, JSON.stringify({ ...base, tiers: older }));
    const read = readRegistry(file);
    expect(read.illustration).toEqual({ sharp: DEFAULT_REGISTRY.illustration?.sharp });
    expect(read.networks['realesrgan-x4plus-anime-to-x3']).toEqual(DEFAULT_REGISTRY.networks['realesrgan-x4plus-anime-to-x3']);
    // Its own tiers (here all four) run for illustrations what they run for photos: no illustration section is added.
    expect(withDefaultTiers(base).illustration).toBeUndefined();
    // A registry's own illustration section is kept as written (a file without sharp, as read from JSON).
    const own = { ...base, tiers: older, illustration: { sharp: { 4: 'a4' } } } as unknown as NetworkRegistry;
    expect(withDefaultTiers(own).illustration).toEqual({ sharp: { 4: 'a4' } });
  });

  it('resolves the illustration networks like the tiers: listed at their scale, their files present', () => {
    const drawn = { ...base, networks: { ...base.networks, d2: entry('photo2.onnx', 2) }, illustration: { best: { 2: 'd2' } } };
    expect([...resolveRegistry(drawn, dir).keys()].sort()).toEqual(['a2', 'a3', 'a4', 'd2']);
    expect(() => resolveRegistry({ ...drawn, illustration: { best: { 2: 'nope' } } }, dir)).toThrow(
      'registry: tier best has no illustration network for x2',
    );
    expect(() => resolveRegistry({ ...drawn, illustration: { best: { 4: 'd2' } } }, dir)).toThrow('registry: d2 is x2, listed under x4');
    expect(() => resolveRegistry({ ...drawn, illustration: { fast: { 2: 'ghost2' } } }, dir)).toThrow(
      `engine model ${join(dir, 'ghost2.onnx')} is missing`,
    );
  });

  describe('an x4 network serving x2 and x3 (the sharp tier runs x4 and resizes down)', () => {
    const x4 = { ...entry('a4.onnx', 4), receptiveRadius: 349, tailRadius: 2, maxInputPixels: 250_000 };
    const sharp = (n: object = {}) => ({
      ...base,
      networks: { ...base.networks, s2: { ...x4, outscale: 2, ...n }, s3: { ...x4, outscale: 3 }, s4: x4 },
      tiers: { ...base.tiers, sharp: { 2: 's2', 3: 's3', 4: 's4' } },
    });

    it('lists an x4 network under x2 and x3 by its outscale, with its tail radius and input limit', () => {
      const r = resolveRegistry(sharp(), dir);
      expect([r.get('s2')?.scale, r.get('s2')?.outscale, r.get('s3')?.outscale, r.get('s4')?.outscale]).toEqual([4, 2, 3, undefined]);
      expect([r.get('s2')?.tailRadius, r.get('s2')?.maxInputPixels, r.get('s2')?.path]).toEqual([2, 250_000, join(dir, 'a4.onnx')]);
    });

    it('refuses an x4 network under x2 without outscale, an outscale above the scale, a bad tail radius or input limit', () => {
      expect(() => resolveRegistry(sharp({ outscale: undefined }), dir)).toThrow('registry: s2 is x4, listed under x2');
      const up = {
        ...sharp(),
        networks: { ...sharp().networks, s2: { ...entry('a2.onnx', 2), outscale: 4 } },
        tiers: { ...sharp().tiers, sharp: { 2: 's2', 3: 's3', 4: 's2' } },
      };
      expect(() => resolveRegistry(up, dir)).toThrow('registry: s2 outscale must be an integer from 1 to its scale (2)');
      expect(() => resolveRegistry(sharp({ outscale: 2.5 }), dir)).toThrow(
        'registry: s2 outscale must be an integer from 1 to its scale (4)',
      );
      expect(() => resolveRegistry(sharp({ tailRadius: 350 }), dir)).toThrow(
        'registry: s2 tailRadius must be an integer from 0 to its receptiveRadius',
      );
      expect(() => resolveRegistry(sharp({ tailRadius: -1 }), dir)).toThrow('registry: s2 tailRadius must be');
      expect(() => resolveRegistry(sharp({ maxInputPixels: 0 }), dir)).toThrow('registry: s2 maxInputPixels must be a positive integer');
    });
  });

  describe("int8 networks (the registry records each network's precision)", () => {
    const int8 = { ...entry('a2-int8.onnx', 2), precision: 'int8' as const, float32: 'a2' };
    const withInt8 = (n: object) => ({
      ...base,
      networks: { ...base.networks, a2i: { ...int8, ...n } },
      tiers: { ...base.tiers, fast: { ...tier, 2: 'a2i' } },
    });

    it('resolves an int8 tier network together with its float32 parent, which the engine may run instead', () => {
      const r = resolveRegistry(withInt8({}), dir);
      expect([...r.keys()].sort()).toEqual(['a2', 'a2i', 'a3', 'a4']);
      expect([r.get('a2i')?.precision, r.get('a2i')?.path, r.get('a2')?.precision]).toEqual(['int8', join(dir, 'a2-int8.onnx'), undefined]);
      // The parent's file is checked too: a float32 engine would run it.
      const noParentFile = { ...withInt8({}), networks: { ...withInt8({}).networks, a2: entry('gone.onnx', 2) } };
      expect(() => resolveRegistry(noParentFile, dir)).toThrow(`engine model ${join(dir, 'gone.onnx')} is missing`);
    });

    it('refuses an int8 network without a parent, with an unknown or non-float32 parent, or one shaped differently', () => {
      expect(() => resolveRegistry(withInt8({ float32: undefined }), dir)).toThrow(
        'registry: int8 network a2i needs `float32`, the id of its float32 parent',
      );
      expect(() => resolveRegistry(withInt8({ float32: 'nope' }), dir)).toThrow('registry: int8 network a2i needs `float32`');
      expect(() => resolveRegistry(withInt8({ float32: 'a2i' }), dir)).toThrow('registry: the parent of a2i (a2i) is not float32');
      expect(() => resolveRegistry(withInt8({ receptiveRadius: 8 }), dir)).toThrow(
        'registry: a2i and its float32 parent a2 differ in scale, outscale, receptiveRadius, tailRadius, maxInputPixels or selfEnsemble',
      );
      expect(() => resolveRegistry(withInt8({ selfEnsemble: true }), dir)).toThrow('differ in scale, outscale');
      // The same transforms, not just some ensemble: a two-pass int8 network's parent is the float32 pair.
      const pairs = (parent: boolean | number[]) => ({
        ...withInt8({ selfEnsemble: [0, 6] }),
        networks: { ...withInt8({ selfEnsemble: [0, 6] }).networks, a2: { ...entry('a2.onnx', 2), selfEnsemble: parent } },
      });
      expect(resolveRegistry(pairs([0, 6]), dir).get('a2')?.selfEnsemble).toEqual([0, 6]);
      expect(() => resolveRegistry(pairs([0, 4]), dir)).toThrow('differ in scale, outscale');
      expect(() => resolveRegistry(pairs(true), dir)).toThrow('differ in scale, outscale');
      expect(() => resolveRegistry(withInt8({ maxInputPixels: 100 }), dir)).toThrow('differ in scale, outscale');
    });

    it('resolves a float32 stand-in (atFloat32) besides the parent, and refuses one that is unknown, int8 or of another scale', () => {
      const pair = (n: object) => {
        const reg = withInt8({ selfEnsemble: [0, 6], float32: 'a2p', ...n });
        return { ...reg, networks: { ...reg.networks, a2p: { ...entry('a2.onnx', 2), selfEnsemble: [0, 6] } } };
      };
      expect([...resolveRegistry(pair({ atFloat32: 'a2' }), dir).keys()].sort()).toEqual(['a2', 'a2i', 'a2p', 'a3', 'a4']);
      expect(() => resolveRegistry(pair({ atFloat32: 'nope' }), dir)).toThrow('registry: the float32 stand-in of a2i (nope) is not listed');
      expect(() => resolveRegistry(pair({ atFloat32: 'a2i' }), dir)).toThrow('registry: the float32 stand-in of a2i (a2i) is not float32');
      expect(() => resolveRegistry(pair({ atFloat32: 'a3' }), dir)).toThrow(
        'registry: a2i and its float32 stand-in a3 differ in scale or outscale',
      );
      const f32WithStandIn = { ...base, networks: { ...base.networks, a2: { ...entry('a2.onnx', 2), atFloat32: 'a3' } } };
      expect(() => resolveRegistry(f32WithStandIn, dir)).toThrow('registry: a2 names a float32 stand-in but is not int8');
    });

    it('refuses an unknown precision, and a parent named by a network that is not int8', () => {
      expect(() => resolveRegistry(withInt8({ precision: 'int4' }), dir)).toThrow('registry: a2i precision must be one of float32, int8');
      const f32WithParent = { ...base, networks: { ...base.networks, a2: { ...entry('a2.onnx', 2), float32: 'a3' } } };
      expect(() => resolveRegistry(f32WithParent, dir)).toThrow('registry: a2 names a float32 parent but is not int8');
    });
  });
});
