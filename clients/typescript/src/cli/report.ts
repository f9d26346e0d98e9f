import { MultiBar, Presets, type SingleBar } from 'cli-progress';
import type { RetryInfo } from '../http';

export type FileStatus = 'succeeded' | 'failed' | 'skipped' | 'interrupted';

export interface FileResult {
  status: FileStatus;
  input: string;
  output: string;
  relative: string;
  job_id?: string;
  /** For failed: the job's error code (corrupt_image...) or the API error's code at submit (unsupported_media_type...). */
  code?: string;
  message?: string;
  target?: string;
  credits?: number;
  /** The output's size in bytes. */
  bytes?: number;
  /** The job existed already (same Idempotency-Key from an earlier run): nothing new was charged. */
  replayed?: boolean;
  elapsed_ms: number;
}

export interface Summary {
  files: number;
  succeeded: number;
  failed: number;
  skipped: number;
  interrupted: number;
  /** Not submitted because the key was refused or the credits ran out. */
  not_started: number;
  /** Credits of the outputs made in this run: each job is charged once, whichever run created it. */
  credits: number;
  /** Of those, the credits of jobs an earlier, interrupted run created (found again by their Idempotency-Key). */
  credits_earlier_jobs: number;
  elapsed_ms: number;
  exit_code: number;
}

/** What a file's worker tells the display as it goes. */
export interface FileProgress {
  stage(stage: 'reading' | 'uploading' | 'queued' | 'processing' | 'downloading' | string, fraction?: number): void;
}

export interface Reporter {
  start(files: number, bytes: number, concurrency: number): void;
  file(relative: string, size: number): FileProgress;
  finished(result: FileResult, inputBytes: number): void;
  retry(info: RetryInfo): void;
  message(text: string): void;
  end(summary: Summary): void;
}

const line = (o: object) => process.stdout.write(`${JSON.stringify(o)}\n`);

/** `--json`: one JSON object per line on stdout (start, file, retry, summary); nothing else there. */
export class JsonReporter implements Reporter {
  start(files: number, bytes: number, concurrency: number) {
    line({ event: 'start', files, bytes, concurrency });
  }
  file(): FileProgress {
    return { stage: () => undefined };
  }
  finished(result: FileResult) {
    line({ event: 'file', ...result });
  }
  retry(info: RetryInfo) {
    line({ event: 'retry', ...info });
  }
  message(text: string) {
    line({ event: 'message', message: text });
  }
  end(summary: Summary) {
    line({ event: 'summary', ...summary });
  }
}

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(1)} MiB`;
}

function describe(r: FileResult): string {
  if (r.status === 'succeeded') {
    const extra = [
      r.target,
      r.credits !== undefined ? `${r.credits} credits${r.replayed ? ', charged before' : ''}` : '',
      formatBytes(r.bytes ?? 0),
    ];
    return `ok      ${r.relative} -> ${r.output} (${extra.filter(Boolean).join(', ')}, ${(r.elapsed_ms / 1000).toFixed(1)} s)`;
  }
  if (r.status === 'skipped') return `skip    ${r.relative}: ${r.output} exists`;
  if (r.status === 'interrupted') return `stopped ${r.relative}`;
  return `FAILED  ${r.relative}: ${r.code}: ${r.message}${r.job_id ? ` (${r.job_id})` : ''}`;
}

/**
 * For people: a line per finished file on stdout and, on a terminal, a bar per file in flight plus one for the
 * run (cli-progress: redraws in place, and leaves the log lines above the bars).
 */
export class HumanReporter implements Reporter {
  private bars?: MultiBar;
  private total?: SingleBar;
  private done = { jobs: 0, files: 0, bytes: 0, credits: 0, bytesTotal: 0 };
  /** Input bytes of the files in flight, weighted by how far each one is (its bar): the run's bar moves with the jobs. */
  private partial = new Map<string, number>();
  private startedAt = Date.now();

  /** `stream`: where the bars draw (the terminal's stderr; a test's stream). */
  constructor(
    private readonly showBars: boolean,
    private readonly stream: NodeJS.WritableStream = process.stderr,
  ) {}

  start(files: number, bytes: number, concurrency: number) {
    this.done.files = files;
    this.startedAt = Date.now();
    this.done.bytesTotal = bytes;
    if (!this.showBars) {
      process.stderr.write(`upscaling ${files} files (${formatBytes(bytes)}), ${concurrency} at a time\n`);
      return;
    }
    this.bars = new MultiBar(
      {
        clearOnComplete: false,
        hideCursor: true,
        barsize: 20,
        format: '{name} |{bar}| {percentage}% {stage}',
        autopadding: true,
        stream: this.stream as NodeJS.WriteStream,
      },
      Presets.shades_classic,
    );
    // The run's bar first, without a name, so it fits 80 columns with its figures.
    this.total = this.bars.create(Math.max(1, bytes), 0, { stage: this.totals() }, { format: '{bar} {percentage}% {stage}' });
    this.total.update(0, { stage: this.totals() });
  }

  private totals(): string {
    const d = this.done;
    return `${d.jobs}/${d.files} jobs, ${formatBytes(d.bytes)}/${formatBytes(d.bytesTotal)}, ${d.credits} credits, ETA ${this.eta()}`;
  }

  /** Time left from the run's pace so far: the input bytes still to do at the bytes per second done (so a run of mixed sizes is not judged by its file count). */
  private eta(): string {
    const { bytesTotal } = this.done;
    const bytes = this.doneSoFar();
    if (bytes <= 0) return '?';
    const left = Math.max(0, Math.round(((bytesTotal - bytes) * (Date.now() - this.startedAt)) / bytes / 1000));
    return left >= 60 ? `${Math.floor(left / 60)}m${String(left % 60).padStart(2, '0')}s` : `${left}s`;
  }

  file(relative: string, size = 0): FileProgress {
    if (!this.bars) return { stage: () => undefined };
    const name = relative.length > 20 ? `…${relative.slice(-19)}` : relative.padEnd(20);
    const bar = this.bars.create(100, 0, { name, stage: 'reading' });
    return {
      stage: (stage, fraction) => {
        // The file's bar: upload 0-10 %, the job's progress 10-85 % where the service reports it, download 85-100 %.
        const base = { reading: 0, uploading: 5, queued: 10, processing: 10, downloading: 85 }[stage] ?? 0;
        const span = stage === 'processing' ? 75 : stage === 'downloading' ? 15 : 0;
        const percent = Math.round(base + span * (fraction ?? 0));
        if (stage === 'done') {
          this.bars?.remove(bar);
          this.partial.delete(relative);
        } else {
          bar.update(percent, { stage });
          this.partial.set(relative, (size * percent) / 100);
          this.total?.update(this.doneSoFar(), { stage: this.totals() });
        }
      },
    };
  }

  finished(result: FileResult, inputBytes: number) {
    this.done.jobs += 1;
    this.done.bytes += inputBytes;
    if (result.status === 'succeeded') this.done.credits += result.credits ?? 0;
    if (this.bars && this.total) {
      this.bars.log(`${describe(result)}\n`);
      // ETA from bytes done, so a run of mixed sizes is not judged by its file count.
      this.partial.delete(result.relative);
      this.total.update(this.doneSoFar(), { stage: this.totals() });
    } else {
      process.stdout.write(`${describe(result)}\n`);
    }
  }

  retry(info: RetryInfo) {
    this.message(`retrying ${info.method} ${info.path} in ${(info.delayMs / 1000).toFixed(1)} s${info.code ? ` (${info.code})` : ''}`);
  }

  message(text: string) {
    if (this.bars) this.bars.log(`${text}\n`);
    else process.stderr.write(`${text}\n`);
  }

  /** Bytes of finished files plus the share of those in flight. */
  private doneSoFar(): number {
    let inFlight = 0;
    for (const b of this.partial.values()) inFlight += b;
    return this.done.bytes + inFlight;
  }

  end(s: Summary) {
    // cli-progress writes logged lines at its next redraw, and stop() does not redraw: draw once more first, or the
    // last file's line is lost on a terminal.
    this.bars?.update();
    this.bars?.stop();
    const parts = [`${s.succeeded} succeeded`, `${s.skipped} already done`, `${s.failed} failed`];
    if (s.not_started) parts.push(`${s.not_started} not started`);
    if (s.interrupted) parts.push(`${s.interrupted} interrupted (run the same command again to resume)`);
    process.stderr.write(
      `${parts.join(', ')}; ${s.credits} credits for these outputs${s.credits_earlier_jobs ? ` (${s.credits_earlier_jobs} of them for jobs an earlier run created)` : ''}; ${(s.elapsed_ms / 1000).toFixed(1)} s\n`,
    );
  }
}
