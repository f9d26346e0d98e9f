import { createHash } from 'node:crypto';
import { copyFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { basename, extname, join } from 'node:path';
import { UpscalerApiError } from '../errors';
import { Upscaler } from '../node';
import type { Job, OutputFormat, Quality, Target } from '../types';
import { EXIT } from './exit-codes';

export interface CompareRun {
  client: Upscaler;
  input: string;
  outDir: string;
  qualities: Quality[];
  target?: Target;
  format?: OutputFormat;
  signal: AbortSignal;
}

/** One tier's outcome: its file, or why it has none. */
export interface CompareCell {
  quality: Quality;
  status: 'succeeded' | 'failed';
  job_id?: string;
  file?: string;
  credits?: number;
  duration_ms?: number | null;
  bytes?: number;
  width?: number;
  height?: number;
  code?: string;
  message?: string;
}

export interface CompareSummary {
  event: 'compare';
  input: string;
  sheet: string;
  cells: CompareCell[];
  credits: number;
  exit_code: number;
}

const EXTENSION: Record<OutputFormat, string> = { png: 'png', jpeg: 'jpg', webp: 'webp', avif: 'avif' };

/**
 * `upscaler compare`: one image through every quality tier asked for (all four by default), side by side. Every tier
 * is its own job, charged as one (the summary says the total), submitted at once and followed to its end; each has an
 * Idempotency-Key made from the image, target, format and tier, so running the command again pays nothing twice. The
 * results land in the output folder with the source and a sheet, `<name>-compare.html`: the source and every result
 * in a row at the result's size, each captioned with its tier, processing time, size and credits. A tier the
 * service refuses (sharp takes at most 100,000 input pixels) gets its code in its place; the exit status is then 3.
 * The sheet is HTML, not an image, so that the CLI needs no image library and the results stay their own files.
 */
export async function runCompare(run: CompareRun): Promise<CompareSummary> {
  const bytes = await readFile(run.input);
  const name = basename(run.input);
  const stem = name.slice(0, name.length - extname(name).length) || name;
  const format = run.format ?? 'png';
  await mkdir(run.outDir, { recursive: true });
  const sourceFile = `${stem}-source${extname(name).toLowerCase()}`;
  await copyFile(run.input, join(run.outDir, sourceFile));
  const hash = createHash('sha256').update(bytes).digest('hex');

  const cells = await Promise.all(
    run.qualities.map(async (quality): Promise<CompareCell> => {
      const key = createHash('sha256')
        .update(JSON.stringify(['upscaler-compare/1', hash, run.target ?? '', format, quality]))
        .digest('hex');
      try {
        const job = (await run.client.upscale(bytes, {
          target: run.target,
          format,
          quality,
          filename: name,
          idempotencyKey: `upscaler-compare-${key}`,
          wait: true,
          signal: run.signal,
        })) as Job;
        if (job.status !== 'succeeded') {
          return {
            quality,
            status: 'failed',
            job_id: job.id,
            code: job.error?.code ?? job.status,
            message: job.error?.message ?? job.status,
          };
        }
        const file = `${stem}-${quality}.${EXTENSION[format]}`;
        await run.client.download(job, { to: join(run.outDir, file), signal: run.signal });
        return {
          quality,
          status: 'succeeded',
          job_id: job.id,
          file,
          credits: job.credits,
          duration_ms: job.duration_ms,
          bytes: job.result?.bytes,
          width: job.result?.width,
          height: job.result?.height,
        };
      } catch (e) {
        if (run.signal.aborted) throw e;
        if (e instanceof UpscalerApiError) return { quality, status: 'failed', code: e.code, message: e.message };
        const failed = e as { code?: string; message?: string; job?: Job };
        return { quality, status: 'failed', job_id: failed.job?.id, code: failed.code ?? 'error', message: failed.message ?? String(e) };
      }
    }),
  );
  const sheet = `${stem}-compare.html`;
  await writeFile(join(run.outDir, sheet), compareSheet(name, sourceFile, cells));
  const credits = cells.reduce((n, c) => n + (c.status === 'succeeded' ? (c.credits ?? 0) : 0), 0);
  const allGood = cells.every((c) => c.status === 'succeeded');
  return {
    event: 'compare',
    input: run.input,
    sheet: join(run.outDir, sheet),
    cells,
    credits,
    exit_code: allGood ? EXIT.ok : EXIT.someFailed,
  };
}

const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The sheet: the source and every tier in one row, all drawn at the result's size (the source scaled by the browser). */
export function compareSheet(name: string, sourceFile: string, cells: CompareCell[]): string {
  const size = cells.find((c) => c.width && c.height);
  const box = size ? ` width="${size.width}" height="${size.height}"` : '';
  const figure = (src: string | undefined, caption: string) =>
    `<figure>${src ? `<img src="${escape(encodeURI(src))}"${box} alt="${escape(caption)}">` : '<div class="missing"></div>'}` +
    `<figcaption>${escape(caption)}</figcaption></figure>`;
  const figures = [
    figure(sourceFile, 'source (scaled by the browser)'),
    ...cells.map((c) =>
      c.status === 'succeeded'
        ? figure(
            c.file,
            `${c.quality}: ${((c.duration_ms ?? 0) / 1000).toFixed(1)} s, ${c.width}x${c.height}, ${Math.round((c.bytes ?? 0) / 1024)} KiB, ${c.credits} credits`,
          )
        : figure(undefined, `${c.quality}: ${c.code} (${c.message})`),
    ),
  ];
  return [
    '<!doctype html>',
    '<html lang="en"><head><meta charset="utf-8">',
    `<title>${escape(name)}: every quality tier</title>`,
    '<style>body{font:14px system-ui,sans-serif;margin:1rem;background:#1e1e1e;color:#eee}main{display:flex;gap:1rem;overflow-x:auto}' +
      'figure{margin:0}img{display:block;image-rendering:auto}figcaption{margin-top:.4rem}.missing{width:12rem;height:8rem;background:#333}</style>',
    `</head><body><h1>${escape(name)}</h1><main>`,
    ...figures,
    '</main></body></html>',
    '',
  ].join('\n');
}
