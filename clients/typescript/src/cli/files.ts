import { createHash } from 'node:crypto';
import { readdir, stat } from 'node:fs/promises';
import { basename, extname, join, relative, sep } from 'node:path';
import type { OutputFormat } from '../types';

/** The input formats the service takes (spec 8), by file name; anything else in a folder is left alone. */
export const IMAGE_EXTENSIONS = ['.jpg', '.jpeg', '.png', '.webp', '.avif'];
const OUTPUT_EXTENSION: Record<OutputFormat, string> = { png: '.png', jpeg: '.jpg', webp: '.webp', avif: '.avif' };

export interface PlannedFile {
  /** The path as found (absolute or as given). */
  input: string;
  /** Where it lands inside the output folder: its path inside the folder given, or its name for a file given. */
  relative: string;
  output: string;
  size: number;
}

export class UsageError extends Error {}

async function walk(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const found: string[] = [];
  for (const e of entries) {
    const p = join(dir, e.name);
    if (e.isDirectory()) found.push(...(await walk(p)));
    else if (e.isFile() && IMAGE_EXTENSIONS.includes(extname(e.name).toLowerCase())) found.push(p);
  }
  return found;
}

/**
 * Files and folders to (input, output) pairs: a folder's images, at any depth, keep their place under the output
 * folder (`photos/2024/a.jpg` given as `photos` lands in `out/2024/a.webp`); a file given by name lands at the top.
 * Two inputs that would land on one output (a.png and a.jpg) keep their own extension too (a.png.webp, a.jpg.webp).
 */
export async function planFiles(inputs: string[], outDir: string, format: OutputFormat | undefined): Promise<PlannedFile[]> {
  const ext = OUTPUT_EXTENSION[format ?? 'png'];
  const found: Array<{ input: string; relative: string }> = [];
  for (const given of inputs) {
    const s = await stat(given).catch(() => undefined);
    if (!s) throw new UsageError(`no such file or folder: ${given}`);
    if (s.isDirectory()) for (const f of await walk(given)) found.push({ input: f, relative: relative(given, f).split(sep).join('/') });
    else found.push({ input: given, relative: basename(given) });
  }
  const stem = (r: string) => r.slice(0, r.length - extname(r).length);
  const byStem = new Map<string, number>();
  for (const f of found) byStem.set(stem(f.relative), (byStem.get(stem(f.relative)) ?? 0) + 1);
  const planned: PlannedFile[] = [];
  const outputs = new Set<string>();
  for (const f of found) {
    const name = (byStem.get(stem(f.relative)) ?? 0) > 1 ? `${f.relative}${ext}` : `${stem(f.relative)}${ext}`;
    const output = join(outDir, ...name.split('/'));
    if (outputs.has(output)) throw new UsageError(`two inputs would both be written to ${output}: give them separately`);
    outputs.add(output);
    planned.push({ input: f.input, relative: f.relative, output, size: (await stat(f.input)).size });
  }
  return planned;
}

/**
 * The Idempotency-Key of one file's job: the same file (by content and place in the tree) with the same settings
 * gets the same key in every run, so a run that was interrupted after a create, even one whose answer never came
 * back, finds that job again on the next run instead of paying for a second one (docs/api.md, Idempotency).
 */
export function idempotencyKeyFor(
  bytes: Uint8Array,
  relativePath: string,
  settings: { target?: string; format?: string; quality?: string; content?: string; width?: number; height?: number; fit?: string },
): string {
  const hash = createHash('sha256').update(bytes).digest('hex');
  // A content hint other than the default is appended, so the keys of runs made before --content existed hold.
  const hint = settings.content !== undefined && settings.content !== 'photo' ? [settings.content] : [];
  // Likewise a pixel size (--width / --height / --fit), only when given.
  const sized = settings.width !== undefined || settings.height !== undefined;
  const size = sized ? [`size:${settings.width ?? ''}x${settings.height ?? ''}:${settings.fit ?? ''}`] : [];
  const what = JSON.stringify([
    'upscaler-cli/1',
    hash,
    relativePath,
    settings.target ?? '',
    settings.format ?? '',
    settings.quality ?? '',
    ...hint,
    ...size,
  ]);
  return `upscaler-cli-${createHash('sha256').update(what).digest('hex')}`;
}
