import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { idempotencyKeyFor, planFiles, UsageError } from './files';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'upscaler-files-'));
  for (const p of [
    'photos/a.png',
    'photos/sub/b.JPG',
    'photos/sub/deeper/c.webp',
    'photos/notes.txt',
    'photos/x.png',
    'photos/x.jpg',
    'single.avif',
  ]) {
    mkdirSync(join(dir, p, '..'), { recursive: true });
    writeFileSync(join(dir, p), p);
  }
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('planFiles', () => {
  it("mirrors a folder's images at every depth under the output, puts a file given by name at the top, leaves other files alone", async () => {
    const plan = await planFiles([join(dir, 'photos'), join(dir, 'single.avif')], join(dir, 'out'), 'webp');
    expect(plan.map((p) => [p.relative, p.output.slice(dir.length + 1)])).toEqual([
      ['a.png', 'out/a.webp'],
      ['sub/b.JPG', 'out/sub/b.webp'],
      ['sub/deeper/c.webp', 'out/sub/deeper/c.webp'],
      ['x.jpg', 'out/x.jpg.webp'],
      ['x.png', 'out/x.png.webp'],
      ['single.avif', 'out/single.webp'],
    ]);
    expect(plan[0]!.size).toBe('photos/a.png'.length);
  });

  it('names the output after the format: jpeg as .jpg, png by default', async () => {
    expect((await planFiles([join(dir, 'single.avif')], 'o', 'jpeg'))[0]!.output).toBe(join('o', 'single.jpg'));
    expect((await planFiles([join(dir, 'single.avif')], 'o', undefined))[0]!.output).toBe(join('o', 'single.png'));
  });

  it('refuses a path that does not exist, and two inputs that land on one output', async () => {
    await expect(planFiles([join(dir, 'nope')], 'o', 'png')).rejects.toThrow(UsageError);
    await expect(planFiles([join(dir, 'photos', 'a.png'), join(dir, 'photos', 'a.png')], 'o', 'png')).rejects.toThrow(/both be written/);
  });
});

describe('idempotencyKeyFor', () => {
  const bytes = new Uint8Array([1, 2, 3]);
  it('is the same for the same file, place and settings, in every run', () => {
    const k = idempotencyKeyFor(bytes, 'a/b.png', { target: '4k', format: 'webp' });
    expect(k).toMatch(/^upscaler-cli-[0-9a-f]{64}$/);
    expect(idempotencyKeyFor(new Uint8Array([1, 2, 3]), 'a/b.png', { target: '4k', format: 'webp' })).toBe(k);
  });
  it('differs when the content, the place or any setting differs', () => {
    const k = idempotencyKeyFor(bytes, 'a/b.png', { target: '4k', format: 'webp' });
    expect(idempotencyKeyFor(new Uint8Array([1, 2, 4]), 'a/b.png', { target: '4k', format: 'webp' })).not.toBe(k);
    expect(idempotencyKeyFor(bytes, 'c/b.png', { target: '4k', format: 'webp' })).not.toBe(k);
    expect(idempotencyKeyFor(bytes, 'a/b.png', { target: '2k', format: 'webp' })).not.toBe(k);
    expect(idempotencyKeyFor(bytes, 'a/b.png', { target: '4k', format: 'webp', quality: 'best' })).not.toBe(k);
    expect(idempotencyKeyFor(bytes, 'a/b.png', { target: '4k', format: 'webp', content: 'illustration' })).not.toBe(k);
  });
  it('--content photo (the default) keeps the key of a run made without --content, so such a run resumes', () => {
    const before = idempotencyKeyFor(bytes, 'a/b.png', { target: '4k', quality: 'sharp' });
    // The key as it was derived before the content hint existed.
    const what = JSON.stringify(['upscaler-cli/1', createHash('sha256').update(bytes).digest('hex'), 'a/b.png', '4k', '', 'sharp']);
    expect(before).toBe(`upscaler-cli-${createHash('sha256').update(what).digest('hex')}`);
    expect(idempotencyKeyFor(bytes, 'a/b.png', { target: '4k', quality: 'sharp', content: 'photo' })).toBe(before);
  });
});
