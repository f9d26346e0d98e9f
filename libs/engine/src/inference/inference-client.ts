import { extname, join, resolve } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { OutputFormat } from '@upscaler/contracts';
import type { OutputSize } from '../image/resize-to-size';
import { EngineCancelledError, EngineError } from '../engine-errors';
import type { NetworkSpec } from './tile-runner';
import type { JobMessage, ReplyMessage, WorkerInit } from './worker-protocol';

type Done = Extract<ReplyMessage, { type: 'done' }>;

/**
 * The worker runs compiled JavaScript in production (dist/). When the engine itself runs from TypeScript sources
 * (jest, bench scripts) the worker gets a tiny require hook that compiles .ts with @swc/core (a devDependency)
 * and maps @upscaler/<lib> to libs/<lib>/src, exactly as jest.config.js does.
 */
const BOOTSTRAP = `
const { workerData } = require('node:worker_threads');
const { entry, swc, libsRoot } = workerData.__bootstrap;
if (entry.endsWith('.ts')) {
  const fs = require('node:fs');
  const path = require('node:path');
  const Module = require('node:module');
  const { transformSync } = require(swc);
  const compile = (module, filename) => {
    const { code } = transformSync(fs.readFileSync(filename, 'utf8'), {
      filename, sourceMaps: 'inline',
      jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'commonjs' },
    });
    module._compile(code, filename);
  };
  require.extensions['.ts'] = compile;
  const resolveFilename = Module._resolveFilename;
  Module._resolveFilename = function (request, ...rest) {
    const m = /^@upscaler\\/([a-z0-9-]+)$/.exec(request);
    if (m) request = path.join(libsRoot, m[1], 'src', 'index.ts');
    return resolveFilename.call(this, request, ...rest);
  };
}
require(entry);
`;

interface Pending {
  resolve: (r: Done) => void;
  reject: (e: Error) => void;
  onProgress?: (done: number, total: number) => void;
}

export class InferenceClient {
  private worker?: Worker;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private closed = false;

  constructor(private readonly init: WorkerInit) {}

  private spawn(): Worker {
    if (this.worker) return this.worker;
    const ext = extname(__filename);
    const entry = join(__dirname, `inference-worker${ext}`);
    const bootstrap = { entry, swc: ext === '.ts' ? require.resolve('@swc/core') : '', libsRoot: resolve(__dirname, '..', '..', '..') };
    const worker = new Worker(BOOTSTRAP, { eval: true, workerData: { ...this.init, __bootstrap: bootstrap } });
    worker.on('message', (msg: ReplyMessage) => this.settle(msg));
    worker.on('error', (e) => this.failAll(new EngineError('engine_error', `inference worker crashed: ${e.message}`)));
    worker.on('exit', (code) => {
      this.worker = undefined;
      if (this.pending.size) this.failAll(new EngineError('engine_error', `inference worker exited with code ${code}`));
    });
    this.worker = worker;
    return worker;
  }

  private settle(msg: ReplyMessage): void {
    const p = this.pending.get(msg.id);
    if (!p) return;
    if (msg.type === 'progress') return p.onProgress?.(msg.done, msg.total);
    this.pending.delete(msg.id);
    if (msg.type === 'done') p.resolve(msg);
    else if (msg.type === 'cancelled') p.reject(new EngineCancelledError());
    else
      p.reject(
        new EngineError(msg.code, msg.code === 'engine_error' ? `The engine failed: ${msg.message}` : undefined, { cause: msg.message }),
      );
  }

  private failAll(e: Error): void {
    for (const [id, p] of this.pending) {
      this.pending.delete(id);
      p.reject(e);
    }
  }

  run(
    job: { input: Buffer; format: OutputFormat; network: NetworkSpec; maxInputPixels: number; size?: OutputSize },
    signal?: AbortSignal,
    onProgress?: (done: number, total: number) => void,
  ): Promise<Done> {
    if (this.closed) return Promise.reject(new EngineError('engine_error', 'The engine is closed.'));
    if (signal?.aborted) return Promise.reject(new EngineCancelledError());
    const id = this.nextId++;
    const cancel = new SharedArrayBuffer(4);
    const flag = new Int32Array(cancel);
    const msg: JobMessage = { type: 'job', id, cancel, ...job, input: new Uint8Array(job.input) };
    return new Promise<Done>((resolve, reject) => {
      const onAbort = () => Atomics.store(flag, 0, 1);
      signal?.addEventListener('abort', onAbort, { once: true });
      const cleanup = () => signal?.removeEventListener('abort', onAbort);
      this.pending.set(id, {
        resolve: (r) => (cleanup(), resolve(r)),
        reject: (e) => (cleanup(), reject(e)),
        onProgress,
      });
      // The copy of the input is ours: transfer it instead of cloning it again.
      this.spawn().postMessage(msg, [msg.input.buffer as ArrayBuffer]);
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    const w = this.worker;
    if (!w) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => void w.terminate().then(() => resolve()), 10_000);
      w.once('exit', () => (clearTimeout(timer), resolve()));
      w.postMessage({ type: 'close' });
    });
  }
}
