import { DomainError } from '@upscaler/contracts';
import { filenameFromUrl, parseImageUrl, parseSubmitFields, sanitizeFilename } from './submit-request';
import { parseIdempotencyKey, requestFingerprint } from './idempotency';

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (e) {
    return e instanceof DomainError ? e.code : 'not a DomainError';
  }
  return undefined;
}

describe('POST /upscale fields (spec 4.1)', () => {
  it('defaults target to 2k and format to png, and tolerates unknown fields', () => {
    expect(parseSubmitFields({ extra: 'x' })).toEqual({
      target: '2k',
      format: 'png',
      quality: undefined,
      content: 'photo',
      filename: undefined,
    });
  });
  it('accepts every target, format, quality tier and content hint', () => {
    expect(parseSubmitFields({ target: '4k', format: 'avif', quality: 'best', content: 'illustration', filename: 'a.png' })).toEqual({
      target: '4k',
      format: 'avif',
      quality: 'best',
      content: 'illustration',
      filename: 'a.png',
    });
    expect(parseSubmitFields({ quality: 'sharp', content: 'photo' })).toMatchObject({ quality: 'sharp', content: 'photo' });
  });
  it('content (issue 18): photo when left out, null or empty (a multipart form sends ""), else one of photo, illustration', () => {
    for (const content of [undefined, null, '']) expect(parseSubmitFields({ content }).content).toBe('photo');
    for (const bad of ['drawing', 'Illustration', 1, ['photo']]) {
      expect(() => parseSubmitFields({ content: bad })).toThrow(
        expect.objectContaining({ code: 'invalid_request', message: 'content must be one of photo, illustration.' }),
      );
    }
  });
  it('refuses an unknown target with invalid_target and an unknown format with invalid_format', () => {
    expect(codeOf(() => parseSubmitFields({ target: '8k' }))).toBe('invalid_target');
    expect(codeOf(() => parseSubmitFields({ target: 4 }))).toBe('invalid_target');
    expect(codeOf(() => parseSubmitFields({ format: 'gif' }))).toBe('invalid_format');
    expect(codeOf(() => parseSubmitFields({ quality: 'ultra' }))).toBe('invalid_request');
    expect(() => parseSubmitFields({ quality: 'ultra' })).toThrow('quality must be one of fast, balanced, best, sharp.');
    expect(codeOf(() => parseSubmitFields({ filename: 'x'.repeat(256) }))).toBe('invalid_request');
  });
  it('takes image_url only as https without credentials', () => {
    expect(parseImageUrl('https://example.com/a.png').hostname).toBe('example.com');
    expect(codeOf(() => parseImageUrl('http://example.com/a.png'))).toBe('invalid_image_url');
    expect(codeOf(() => parseImageUrl('https://u:p@example.com/a.png'))).toBe('invalid_image_url');
    expect(codeOf(() => parseImageUrl('not a url'))).toBe('invalid_image_url');
    expect(codeOf(() => parseImageUrl(undefined))).toBe('invalid_request');
  });
  it('keeps only a display name of a filename', () => {
    expect(sanitizeFilename('../../etc/passwd')).toBe('passwd');
    expect(sanitizeFilename('C:\\photos\\cat.jpg')).toBe('cat.jpg');
    expect(sanitizeFilename('a\u0000b\nc.png')).toBe('abc.png');
    expect(sanitizeFilename('   ')).toBeUndefined();
    expect(filenameFromUrl(new URL('https://x.test/dir/My%20Photo.webp?size=1'))).toBe('My Photo.webp');
  });
});

describe('Idempotency-Key (docs/design.md §4)', () => {
  it('accepts 1-255 printable characters and refuses others', () => {
    expect(parseIdempotencyKey(undefined)).toBeNull();
    expect(parseIdempotencyKey('3f1c…'.replace('…', '-abc'))).toBe('3f1c-abc');
    expect(codeOf(() => parseIdempotencyKey(''))).toBe('invalid_request');
    expect(codeOf(() => parseIdempotencyKey('x'.repeat(256)))).toBe('invalid_request');
    expect(codeOf(() => parseIdempotencyKey('tab\there'))).toBe('invalid_request');
  });
  it('fingerprints requests independently of field order, and differently when any parameter differs', () => {
    const a = requestFingerprint({ target: '2k', format: 'png', image: 'sha256:1' });
    expect(requestFingerprint({ image: 'sha256:1', format: 'png', target: '2k' })).toBe(a);
    expect(requestFingerprint({ target: '3k', format: 'png', image: 'sha256:1' })).not.toBe(a);
    expect(requestFingerprint({ target: '2k', format: 'png', image: 'sha256:2' })).not.toBe(a);
  });
});
