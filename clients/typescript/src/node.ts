/**
 * @upscaler/client under Node: the browser client plus file paths. `upscale('photo.jpg')` reads the file (its name
 * becomes the job's filename); `download(job, { to: 'out.png' })` writes to a temporary file beside it and renames
 * it into place, so a path that exists is always a whole file (the CLI's resume relies on it).
 */
import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { readFile, rename, rm } from 'node:fs/promises';
import { basename } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as NodeWebReadableStream } from 'node:stream/web';
import { Upscaler as BrowserUpscaler, type Download, type DownloadOptions, type JobRef } from './client';
import { prepareInput, type ImageInput as WebImageInput, type PreparedInput } from './input';

export * from './index';

/** Everything the browser entry takes, plus a file path (a string that is not an http(s) URL). */
export type ImageInput = WebImageInput;

export class Upscaler extends BrowserUpscaler {
  protected override async prepare(input: WebImageInput, filename?: string): Promise<PreparedInput> {
    if (typeof input === 'string' && !/^https?:\/\//i.test(input)) {
      const bytes = await readFile(input);
      return { kind: 'file', blob: new Blob([bytes]), filename: filename ?? basename(input) };
    }
    return prepareInput(input, filename);
  }

  /** To a file path (atomically), a Node Writable, a web WritableStream, or (no `to`) as a web stream. */
  override async download(
    ref: JobRef,
    opts: DownloadOptions & { to?: string | Writable | WritableStream<Uint8Array> } = {},
  ): Promise<Download> {
    const { to, ...rest } = opts;
    if (to === undefined || (typeof to !== 'string' && !(to instanceof Writable))) {
      return super.download(ref, { ...rest, to });
    }
    const d = await super.download(ref, rest);
    const source = Readable.fromWeb(d.body as unknown as NodeWebReadableStream<Uint8Array>);
    if (to instanceof Writable) {
      await pipeline(source, to, { signal: opts.signal });
      return { contentType: d.contentType, bytes: d.bytes };
    }
    const part = `${to}.${randomBytes(4).toString('hex')}.part`;
    try {
      await pipeline(source, createWriteStream(part), { signal: opts.signal });
      await rename(part, to);
    } catch (e) {
      await rm(part, { force: true });
      throw e;
    }
    return { contentType: d.contentType, bytes: d.bytes };
  }
}
