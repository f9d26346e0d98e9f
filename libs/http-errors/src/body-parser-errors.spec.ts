import { json, urlencoded } from 'body-parser';
import type { Request, Response } from 'express';
import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { classifyBodyParserError } from './body-parser-errors';

/** Runs the real body parser on a request made of `headers` and `body`, and classifies what it reports. */
async function parse(parser: ReturnType<typeof json>, headers: Record<string, string>, body: Buffer | string) {
  const bytes = Buffer.from(body);
  const req = Object.assign(Readable.from([bytes]), {
    headers: { 'content-length': String(bytes.length), ...headers },
    method: 'POST',
    url: '/',
  }) as unknown as Request;
  const err = await new Promise<unknown>((resolve) => parser(req, {} as Response, (e?: unknown) => resolve(e)));
  return err === undefined ? 'parsed' : classifyBodyParserError(err, req);
}

describe('body-parser errors become our codes (docs/api.md "Request bodies")', () => {
  const jsonParser = json();

  it('a charset other than UTF-8: 415 unsupported_charset', async () => {
    expect(await parse(jsonParser, { 'content-type': 'application/json; charset=latin1' }, '{}')).toEqual({
      code: 'unsupported_charset',
      status: 415,
      message: 'JSON bodies must be UTF-8 (the Content-Type names charset latin1).',
    });
  });

  it('a Content-Encoding body-parser cannot decode: 415 unsupported_content_encoding', async () => {
    expect(await parse(jsonParser, { 'content-type': 'application/json', 'content-encoding': 'compress' }, '{}')).toEqual({
      code: 'unsupported_content_encoding',
      status: 415,
      message: 'Content-Encoding compress is not supported: send the body as is, or gzip, deflate or br.',
    });
  });

  it('gzip that is not gzip: 400 invalid_request; real gzip is parsed', async () => {
    expect(await parse(jsonParser, { 'content-type': 'application/json', 'content-encoding': 'gzip' }, '{}')).toEqual({
      code: 'invalid_request',
      status: 400,
      message: 'The body could not be decoded as Content-Encoding gzip.',
    });
    expect(await parse(jsonParser, { 'content-type': 'application/json', 'content-encoding': 'gzip' }, gzipSync('{"a":1}'))).toBe('parsed');
  });

  it('too large: 413 naming the JSON body and its limit', async () => {
    expect(await parse(jsonParser, { 'content-type': 'application/json' }, `"${'x'.repeat(200 * 1024)}"`)).toEqual({
      code: 'payload_too_large',
      status: 413,
      message: 'The JSON body is larger than 100 kB (102400 bytes).',
    });
  });

  it('not JSON: 400 invalid_request', async () => {
    expect(await parse(jsonParser, { 'content-type': 'application/json' }, '{nope')).toEqual({
      code: 'invalid_request',
      status: 400,
      message: 'The body is not valid JSON.',
    });
  });

  it('a form body with an unsupported charset: 415 unsupported_charset', async () => {
    expect(
      await parse(urlencoded({ extended: false }), { 'content-type': 'application/x-www-form-urlencoded; charset=koi8-r' }, 'a=b'),
    ).toMatchObject({
      code: 'unsupported_charset',
      status: 415,
    });
  });

  it('anything else is not ours to classify', () => {
    const req = { headers: {} } as Request;
    expect([classifyBodyParserError(new Error('boom'), req), classifyBodyParserError(undefined, req)]).toEqual([undefined, undefined]);
  });
});
