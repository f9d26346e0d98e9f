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
      size: undefined,
    });
  });
  it('accepts every target, format, quality tier and content hint', () => {
    expect(parseSubmitFields({ target: '4k', format: 'avif', quality: 'best', content: 'illustration', filename: 'a.png' })).toEqual({
      target: '4k',
      format: 'avif',
      quality: 'best',
      content: 'illustration',
      filename: 'a.png',
      size: undefined,
    });
    expect(parseSubmitFields({ quality: 'sharp', content: 'photo' })).toMatchObject({ quality: 'sharp', content: 'photo' });
  });
  it('content: photo when left out, null or empty (a multipart form sends ""), else one of photo, illustration', () => {
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
  it('a pixel size instead of target: width and/or height (a form sends text), fit within by default', () => {
    expect(parseSubmitFields({ width: '1920' }).size).toEqual({ width: 1920, height: null, fit: 'within' });
    expect(parseSubmitFields({ width: 800, height: 600, fit: 'cover' }).size).toEqual({ width: 800, height: 600, fit: 'cover' });
    expect(parseSubmitFields({ height: ' 1080 ', width: '', fit: 'exact' }).size).toEqual({ width: null, height: 1080, fit: 'exact' });
    expect(parseSubmitFields({ width: null, height: '' }).size).toBeUndefined();
  });
  it('refuses a size that is not whole pixels from 1 to 65500, an unknown fit, or a size with a target: invalid_size', () => {
    for (const bad of ['0', 0, -1, '1.5', 1.5, 'wide', 65_501, '1e3', [100]]) {
      expect(codeOf(() => parseSubmitFields({ width: bad }))).toBe('invalid_size');
      expect(codeOf(() => parseSubmitFields({ height: bad }))).toBe('invalid_size');
    }
    expect(() => parseSubmitFields({ width: 65_501 })).toThrow('width must be a whole number of pixels from 1 to 65500.');
    expect(() => parseSubmitFields({ width: 100, fit: 'fill' })).toThrow('fit must be one of within, cover, exact.');
    expect(() => parseSubmitFields({ width: 100, target: '2k' })).toThrow('Give target or a size (width, height), not both.');
    expect(() => parseSubmitFields({ fit: 'cover' })).toThrow('fit needs width and height.');
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
