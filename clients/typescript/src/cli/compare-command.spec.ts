import { compareSheet } from './compare-command';

describe('the compare sheet', () => {
  it('draws the source and every tier at the result size, with a refused tier in its place and every text escaped', () => {
    const html = compareSheet('a<b>.png', 'a<b>-source.png', [
      { quality: 'fast', status: 'succeeded', file: 'a<b>-fast.png', width: 80, height: 60, bytes: 2048, credits: 3, duration_ms: 1234 },
      { quality: 'sharp', status: 'failed', code: 'image_too_large_to_upscale', message: 'over 100,000 pixels' },
    ]);
    expect([...html.matchAll(/<img src="([^"]+)" width="80" height="60" alt="([^"]+)">/g)].map((m) => [m[1], m[2]])).toEqual([
      ['a%3Cb%3E-source.png', 'source (scaled by the browser)'],
      ['a%3Cb%3E-fast.png', 'fast: 1.2 s, 80x60, 2 KiB, 3 credits'],
    ]);
    expect(html).toContain('<figcaption>sharp: image_too_large_to_upscale (over 100,000 pixels)</figcaption>');
    expect(html).toContain('<title>a&#60;b&#62;.png: every quality tier</title>');
    expect(html).not.toContain('<b>');
  });
});
