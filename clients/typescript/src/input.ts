import { UpscalerError } from './errors';

/**
 * What `upscale()` takes everywhere (browsers and Node): bytes (Blob/File, ArrayBuffer, a typed array such as a
 * Buffer), a stream (a web ReadableStream or any async iterable of bytes, such as a Node Readable), or the image's
 * public HTTPS URL (a URL object, or a string starting with https://). The Node entry adds file paths.
 */
export type ImageInput = Blob | ArrayBuffer | ArrayBufferView | ReadableStream<Uint8Array> | AsyncIterable<Uint8Array> | URL | string;

export type PreparedInput = { kind: 'file'; blob: Blob; filename?: string } | { kind: 'url'; url: string; filename?: string };

async function collect(chunks: AsyncIterable<Uint8Array>): Promise<Blob> {
  const parts: Uint8Array[] = [];
  for await (const c of chunks) parts.push(typeof c === 'string' ? new TextEncoder().encode(c) : c);
  return new Blob(parts);
}

async function* iterateWebStream(stream: ReadableStream<Uint8Array>): AsyncIterable<Uint8Array> {
  const reader = stream.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      yield value;
    }
  } finally {
    reader.releaseLock();
  }
}

function isAsyncIterable(x: unknown): x is AsyncIterable<Uint8Array> {
  return typeof x === 'object' && x !== null && Symbol.asyncIterator in x;
}

/**
 * Streams are read into memory first (an upload is at most 10 MiB): a create can then be retried with the same
 * bytes after a 429, a 503 or a dropped connection, under the same Idempotency-Key.
 */
export async function prepareInput(input: ImageInput, filename?: string): Promise<PreparedInput> {
  if (input instanceof URL) return { kind: 'url', url: input.toString(), filename };
  if (typeof input === 'string') {
    if (/^https?:\/\//i.test(input)) return { kind: 'url', url: input, filename };
    throw new UpscalerError(`a string input must be an https:// URL here (file paths need the Node entry of @upscaler/client): ${input}`);
  }
  if (typeof Blob !== 'undefined' && input instanceof Blob) {
    const name = filename ?? (typeof File !== 'undefined' && input instanceof File ? input.name : undefined);
    return { kind: 'file', blob: input, filename: name };
  }
  if (input instanceof ArrayBuffer) return { kind: 'file', blob: new Blob([input]), filename };
  if (ArrayBuffer.isView(input)) {
    const view = new Uint8Array(input.buffer, input.byteOffset, input.byteLength);
    return { kind: 'file', blob: new Blob([view]), filename };
  }
  if (typeof ReadableStream !== 'undefined' && input instanceof ReadableStream) {
    return { kind: 'file', blob: await collect(iterateWebStream(input)), filename };
  }
  if (isAsyncIterable(input)) return { kind: 'file', blob: await collect(input), filename };
  throw new UpscalerError('unsupported image input: pass bytes, a stream, a URL or (in Node) a file path');
}
