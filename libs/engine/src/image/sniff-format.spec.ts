import { isAnimatedPng, sniffFormat } from './sniff-format';

const bytes = (...parts: (string | number[] | Buffer)[]) =>
  Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'latin1') : Buffer.isBuffer(p) ? p : Buffer.from(p))));
const u32 = (n: number) => [(n >>> 24) & 255, (n >>> 16) & 255, (n >>> 8) & 255, n & 255];
const ftyp = (major: string, ...compat: string[]) =>
  bytes(u32(16 + 4 * compat.length), 'ftyp', major, [0, 0, 0, 0], ...compat, 'rest of file');

describe('sniffFormat (spec 1: the format is detected from the bytes)', () => {
  it('recognises the four accepted formats by their signatures', () => {
    expect(sniffFormat(bytes([0xff, 0xd8, 0xff, 0xe0], 'JFIF'))).toBe('jpeg');
    expect(sniffFormat(bytes([0x89], 'PNG', [0x0d, 0x0a, 0x1a, 0x0a], 'IHDR...'))).toBe('png');
    expect(sniffFormat(bytes('RIFF', [1, 2, 3, 4], 'WEBPVP8 rest'))).toBe('webp');
    expect(sniffFormat(ftyp('avif', 'mif1', 'miaf'))).toBe('avif');
    expect(sniffFormat(ftyp('mif1', 'avif', 'miaf'))).toBe('avif');
    expect(sniffFormat(ftyp('avis', 'msf1'))).toBe('avif');
  });

  it('answers null for GIF, TIFF, BMP, SVG, HEIC, JPEG XL, PDF and empty input', () => {
    expect(sniffFormat(bytes('GIF89a....'))).toBeNull();
    expect(sniffFormat(bytes('II*\0........'))).toBeNull();
    expect(sniffFormat(bytes('MM\0*........'))).toBeNull();
    expect(sniffFormat(bytes('BM..........'))).toBeNull();
    expect(sniffFormat(bytes('<svg xmlns="http://www.w3.org/2000/svg"></svg>'))).toBeNull();
    expect(sniffFormat(bytes('<?xml version="1.0"?><svg/>'))).toBeNull();
    expect(sniffFormat(ftyp('heic', 'mif1', 'heic'))).toBeNull();
    expect(sniffFormat(bytes([0xff, 0x0a], 'jxl codestream'))).toBeNull();
    expect(sniffFormat(bytes('%PDF-1.7'))).toBeNull();
    expect(sniffFormat(Buffer.alloc(0))).toBeNull();
  });

  it('is not fooled by a RIFF that is not WebP or a truncated signature', () => {
    expect(sniffFormat(bytes('RIFF', [1, 2, 3, 4], 'WAVEfmt '))).toBeNull();
    expect(sniffFormat(bytes([0x89], 'PN'))).toBeNull();
    expect(sniffFormat(bytes([0xff, 0xd8]))).toBeNull();
  });
});

describe('isAnimatedPng', () => {
  const chunk = (type: string, len = 0) => bytes(u32(len), type, Buffer.alloc(len).toString('latin1'), [0, 0, 0, 0]);
  const sig = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
  it('finds acTL before the first IDAT', () => {
    expect(isAnimatedPng(bytes(sig, chunk('IHDR', 13), chunk('acTL', 8), chunk('IDAT', 4), chunk('IEND')))).toBe(true);
  });
  it('ignores still PNGs', () => {
    expect(isAnimatedPng(bytes(sig, chunk('IHDR', 13), chunk('IDAT', 4), chunk('IEND')))).toBe(false);
  });
});
