import { existsSync, readFileSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { QUALITY_TIERS, SCALE_OF_TARGET, type QualityTier } from '@upscaler/contracts';
import { ensembleTransforms, isDihedralSubset } from '../inference/dihedral';
import { DEFAULT_REGISTRY } from './default-registry';
import type { NetworkEntry, NetworkRegistry } from './network-registry';
import { PRECISIONS } from './precision';

export interface ResolvedNetwork extends NetworkEntry {
  id: string;
  path: string;
}

const SCALES = [...new Set(Object.values(SCALE_OF_TARGET))];

/** Reads a registry override (JSON, same shape as DEFAULT_REGISTRY) or returns the default one. */
export function readRegistry(path?: string): NetworkRegistry {
  if (!path) return DEFAULT_REGISTRY;
  return withDefaultTiers(JSON.parse(readFileSync(path, 'utf8')) as NetworkRegistry);
}

/**
 * A registry that lists no network for a tier added after it was written (`sharp`: an additive request
 * value) runs that tier as the built-in registry does, with the built-in entries of its networks (where the
 * registry does not define the same ids itself), and with the built-in illustration networks of that tier (the
 * `content` hint). The tiers the registry lists run its own choice for illustrations too: its `illustration`
 * section, else what a photo runs. Pure.
 */
export function withDefaultTiers(registry: NetworkRegistry): NetworkRegistry {
  const tiers = { ...registry.tiers };
  const networks = { ...registry.networks };
  const illustration = { ...registry.illustration };
  for (const tier of QUALITY_TIERS) {
    if (registry.tiers?.[tier]) continue;
    tiers[tier] = DEFAULT_REGISTRY.tiers[tier];
    const drawings = DEFAULT_REGISTRY.illustration?.[tier];
    if (drawings && !registry.illustration?.[tier]) illustration[tier] = drawings;
    for (const id of [...Object.values(tiers[tier]), ...Object.values(illustration[tier] ?? {})])
      networks[id] ??= DEFAULT_REGISTRY.networks[id];
  }
  return { ...registry, tiers, networks, ...(Object.keys(illustration).length > 0 ? { illustration } : {}) };
}

/**
 * Checks every tier has a network at every scale, each JPEG variant and illustration network is sound, each int8 network names a matching
 * float32 parent, and each file exists (the parents' too: the engine may run them, precision.ts); answers
 * absolute paths.
 */
export function resolveRegistry(registry: NetworkRegistry, modelsDir: string): Map<string, ResolvedNetwork> {
  const out = new Map<string, ResolvedNetwork>();
  if (!QUALITY_TIERS.includes(registry.defaultQuality)) throw new Error(`registry: unknown default tier ${registry.defaultQuality}`);
  const listed: { tier: QualityTier; scale: number; id: string | undefined; what: string }[] = [];
  for (const tier of QUALITY_TIERS) {
    for (const scale of SCALES) listed.push({ tier, scale, id: registry.tiers[tier]?.[scale], what: 'network' });
    for (const [scale, v] of Object.entries(registry.jpegVariants?.[tier] ?? {})) {
      if (!(Number.isInteger(v.maxJpegQuality) && v.maxJpegQuality >= 1 && v.maxJpegQuality <= 100)) {
        throw new Error(`registry: the JPEG variant of ${tier} x${scale} needs an integer maxJpegQuality in 1..100`);
      }
      listed.push({ tier, scale: Number(scale), id: v.network, what: 'JPEG variant' });
    }
    for (const [scale, id] of Object.entries(registry.illustration?.[tier] ?? {})) {
      listed.push({ tier, scale: Number(scale), id, what: 'illustration network' });
    }
  }
  for (const { tier, scale, id, what } of listed) {
    const entry = id ? registry.networks[id] : undefined;
    if (!id || !entry) throw new Error(`registry: tier ${tier} has no ${what} for x${scale}`);
    if (entry.outscale !== undefined && !(Number.isInteger(entry.outscale) && entry.outscale >= 1 && entry.outscale <= entry.scale)) {
      throw new Error(`registry: ${id} outscale must be an integer from 1 to its scale (${entry.scale})`);
    }
    const outscale = entry.outscale ?? entry.scale;
    if (outscale !== scale) throw new Error(`registry: ${id} is x${outscale}, listed under x${scale}`);
    if (
      entry.tailRadius !== undefined &&
      !(Number.isInteger(entry.tailRadius) && entry.tailRadius >= 0 && entry.tailRadius <= entry.receptiveRadius)
    ) {
      throw new Error(`registry: ${id} tailRadius must be an integer from 0 to its receptiveRadius`);
    }
    if (entry.tailRadius !== undefined && entry.selfEnsemble)
      throw new Error(`registry: ${id} cannot be both cropped (tailRadius) and self-ensembled`);
    if (entry.maxInputPixels !== undefined && !(Number.isInteger(entry.maxInputPixels) && entry.maxInputPixels > 0)) {
      throw new Error(`registry: ${id} maxInputPixels must be a positive integer`);
    }
    // The parent is appended to the list this loop walks, so it is checked like any listed network.
    if (entry.precision === 'int8') listed.push({ tier, scale, id: float32Parent(registry, id, entry), what: `float32 parent of ${id}` });
    if (entry.atFloat32 !== undefined)
      listed.push({ tier, scale, id: float32StandIn(registry, id, entry), what: `float32 stand-in of ${id}` });
    if (!(Number.isInteger(entry.receptiveRadius) && entry.receptiveRadius >= 0 && Number.isInteger(entry.tile) && entry.tile > 0)) {
      throw new Error(`registry: ${id} needs an integer receptiveRadius >= 0 and tile > 0`);
    }
    if (
      entry.selfEnsemble !== undefined &&
      typeof entry.selfEnsemble !== 'boolean' &&
      !(Array.isArray(entry.selfEnsemble) && isDihedralSubset(entry.selfEnsemble))
    )
      throw new Error(
        `registry: ${id} selfEnsemble must be true, false or a list of 2, 4 or 8 distinct transforms 0..7, the identity (0) first`,
      );
    if (entry.precision !== undefined && !PRECISIONS.includes(entry.precision))
      throw new Error(`registry: ${id} precision must be one of ${PRECISIONS.join(', ')}`);
    if (entry.float32 !== undefined && entry.precision !== 'int8')
      throw new Error(`registry: ${id} names a float32 parent but is not int8`);
    const path = isAbsolute(entry.file) ? entry.file : join(modelsDir, entry.file);
    if (!existsSync(path)) {
      throw new Error(
        `engine model ${path} is missing: our trained networks are copied there by npm ci's postinstall, which also converts Real-ESRGAN (again: \`node scripts/convert-ncnn/convert-realesrgan.js\`); the converted UpscalerJS ones are made by \`node scripts/convert-models.js\``,
      );
    }
    out.set(id, { ...entry, id, path });
  }
  return out;
}

/** The float32 network an int8 one stands in for: listed, float32, and the same function shape (scale, halo, ensemble). */
function float32Parent(registry: NetworkRegistry, id: string, entry: NetworkEntry): string {
  const parentId = entry.float32;
  const parent = parentId ? registry.networks[parentId] : undefined;
  if (!parentId || !parent) throw new Error(`registry: int8 network ${id} needs \`float32\`, the id of its float32 parent`);
  if ((parent.precision ?? 'float32') !== 'float32') throw new Error(`registry: the parent of ${id} (${parentId}) is not float32`);
  const same = (k: 'scale' | 'outscale' | 'receptiveRadius' | 'tailRadius' | 'maxInputPixels') => parent[k] === entry[k];
  if (
    !(['scale', 'outscale', 'receptiveRadius', 'tailRadius', 'maxInputPixels'] as const).every(same) ||
    String(ensembleTransforms(parent.selfEnsemble)) !== String(ensembleTransforms(entry.selfEnsemble))
  ) {
    throw new Error(
      `registry: ${id} and its float32 parent ${parentId} differ in scale, outscale, receptiveRadius, tailRadius, maxInputPixels or selfEnsemble`,
    );
  }
  return parentId;
}

/** What a float32 engine runs instead of int8 network `id` when not its parent: listed, float32, the same scale. */
function float32StandIn(registry: NetworkRegistry, id: string, entry: NetworkEntry): string {
  const standInId = entry.atFloat32!;
  const standIn = registry.networks[standInId];
  if (entry.precision !== 'int8') throw new Error(`registry: ${id} names a float32 stand-in but is not int8`);
  if (!standIn) throw new Error(`registry: the float32 stand-in of ${id} (${standInId}) is not listed`);
  if ((standIn.precision ?? 'float32') !== 'float32')
    throw new Error(`registry: the float32 stand-in of ${id} (${standInId}) is not float32`);
  if (standIn.scale !== entry.scale || standIn.outscale !== entry.outscale)
    throw new Error(`registry: ${id} and its float32 stand-in ${standInId} differ in scale or outscale`);
  return standInId;
}

/** The repository's models/ folder (scripts/postinstall.js, scripts/convert-models.js), found from this file upwards. */
export function defaultModelsDir(): string {
  if (process.env.UPSCALE_MODELS_DIR) return resolve(process.env.UPSCALE_MODELS_DIR);
  let dir = __dirname;
  for (;;) {
    if (existsSync(join(dir, 'models', 'manifest.json'))) return join(dir, 'models');
    const up = dirname(dir);
    if (up === dir) return resolve('models');
    dir = up;
  }
}
