import { mkdir, readFile, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { JobFailedError, UpscalerApiError } from '../errors';
import { Upscaler } from '../node';
import { isFinal, progressOf, type Content, type Fit, type Job, type OutputFormat, type Quality, type Target } from '../types';
import { EXIT } from './exit-codes';
import { idempotencyKeyFor, planFiles, type PlannedFile } from './files';
import type { FileResult, Reporter, Summary } from './report';

export interface UpscaleRun {
  client: Upscaler;
  inputs: string[];
  outDir: string;
  target?: Target;
  format?: OutputFormat;
  quality?: Quality;
  content?: Content;
  /** Output by pixel size instead of target (docs/api.md, "Output by pixel size"). */
  width?: number;
  height?: number;
  fit?: Fit;
  concurrency: number;
  reporter: Reporter;
  /** Aborted by SIGINT: work in flight stops, jobs are left to finish on the service (a re-run picks them up). */
  signal: AbortSignal;
  /** The longest wait asked of the service per poll: short, so the bars move. */
  pollWaitSeconds?: number;
}

/** Errors that would fail every further file the same way: stop submitting. */
const FATAL: Record<string, number> = { unauthorized: EXIT.auth, forbidden: EXIT.auth, insufficient_credits: EXIT.credits };

/**
 * `upscaler upscale`: each input through create (with its own Idempotency-Key), wait and download, `concurrency`
 * at a time. An output that exists is a finished one (downloads are renamed into place whole), so it is skipped;
 * everything else is asked for again under the same key, which finds the job of an earlier, interrupted run.
 */
export async function runUpscale(run: UpscaleRun): Promise<Summary> {
  const started = Date.now();
  const files = await planFiles(run.inputs, run.outDir, run.format);
  const { reporter } = run;
  reporter.start(
    files.length,
    files.reduce((n, f) => n + f.size, 0),
    run.concurrency,
  );
  const results: FileResult[] = [];
  let fatal: number | undefined;
  let next = 0;
  const settings = {
    target: run.target,
    format: run.format,
    quality: run.quality,
    content: run.content,
    width: run.width,
    height: run.height,
    fit: run.fit,
  };

  const one = async (f: PlannedFile): Promise<FileResult> => {
    const t0 = Date.now();
    const base = { input: f.input, output: f.output, relative: f.relative };
    const elapsed = () => Date.now() - t0;
    if (
      await stat(f.output).then(
        (s) => s.isFile(),
        () => false,
      )
    )
      return { ...base, status: 'skipped', elapsed_ms: elapsed() };
    const progress = reporter.file(f.relative, f.size);
    let job: Job | undefined;
    try {
      const bytes = await readFile(f.input);
      progress.stage('uploading');
      const idempotencyKey = idempotencyKeyFor(bytes, f.relative, settings);
      let replayed = false;
      const created = await run.client.upscale(bytes, {
        ...settings,
        filename: f.relative.split('/').pop(),
        idempotencyKey,
        signal: run.signal,
      });
      // No Prefer is sent here, so a create view (202) is a new job and the full view (200) the job an earlier run
      // made with this key (docs/api.md, Idempotency: a replay answers the retrieve view).
      replayed = 'result' in created;
      job = isFinal(created) ? (created as Job) : undefined;
      if (!job) {
        job = await run.client.waitForJob(created.id, {
          signal: run.signal,
          pollWaitSeconds: run.pollWaitSeconds ?? 5,
          onProgress: (j) => progress.stage(j.status === 'processing' ? 'processing' : 'queued', progressOf(j)),
        });
      }
      if (job.status !== 'succeeded') throw new JobFailedError(job);
      progress.stage('downloading', 0);
      await mkdir(dirname(f.output), { recursive: true });
      const d = await run.client.download(job, {
        to: f.output,
        signal: run.signal,
        onProgress: (got, total) => progress.stage('downloading', total ? got / total : 0),
      });
      const written = (await stat(f.output)).size;
      if (written !== d.bytes) throw new Error(`${f.output}: wrote ${written} bytes, the service announced ${d.bytes}`);
      return {
        ...base,
        status: 'succeeded',
        job_id: job.id,
        target: job.target,
        credits: job.credits,
        bytes: written,
        replayed,
        elapsed_ms: elapsed(),
      };
    } catch (e) {
      if (run.signal.aborted) return { ...base, status: 'interrupted', job_id: job?.id, elapsed_ms: elapsed() };
      if (e instanceof JobFailedError) {
        return {
          ...base,
          status: 'failed',
          job_id: e.job.id,
          code: e.code,
          message: e.job.error?.message ?? e.job.status,
          elapsed_ms: elapsed(),
        };
      }
      if (e instanceof UpscalerApiError) {
        if (FATAL[e.code] !== undefined) fatal ??= FATAL[e.code];
        return { ...base, status: 'failed', code: e.code, message: e.message, elapsed_ms: elapsed() };
      }
      throw e;
    } finally {
      progress.stage('done');
    }
  };

  const worker = async () => {
    while (next < files.length && !run.signal.aborted && fatal === undefined) {
      const f = files[next++]!;
      const r = await one(f);
      results.push(r);
      reporter.finished(r, f.size);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(run.concurrency, files.length)) }, worker));

  const count = (s: FileResult['status']) => results.filter((r) => r.status === s).length;
  const unstarted = files.length - results.length;
  const summary: Summary = {
    files: files.length,
    succeeded: count('succeeded'),
    failed: count('failed'),
    skipped: count('skipped'),
    interrupted: count('interrupted') + (run.signal.aborted ? unstarted : 0),
    // After a refused key or an empty balance the rest is not submitted.
    not_started: run.signal.aborted ? 0 : unstarted,
    credits: results.filter((r) => r.status === 'succeeded').reduce((n, r) => n + (r.credits ?? 0), 0),
    credits_earlier_jobs: results.filter((r) => r.status === 'succeeded' && r.replayed).reduce((n, r) => n + (r.credits ?? 0), 0),
    elapsed_ms: Date.now() - started,
    exit_code: run.signal.aborted ? EXIT.interrupted : (fatal ?? (count('failed') > 0 ? EXIT.someFailed : EXIT.ok)),
  };
  return summary;
}
