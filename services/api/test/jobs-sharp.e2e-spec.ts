import sharp from 'sharp';
import { downloadResult, expectError, isFinal, newAccount, useJobsService, waitForJob } from './jobs-harness';

/**
 * Proof: `quality: sharp` jobs through the API at 2k, 3k and 4k (Real-ESRGAN x4plus; 2k and 3k resized
 * down from its x4 output), alpha kept; an input above the tier's 100,000-pixel bound refused at submit.
 */

const jobs = useJobsService();

/** 24x16 RGBA: a colour gradient, alpha opaque on the left half and 0 on the right. */
function rgbaImage(): Promise<Buffer> {
  const [w, h] = [24, 16];
  const px = Buffer.alloc(w * h * 4);
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) {
      const i = (y * w + x) * 4;
      px.set([x * 10, y * 15, 128, x < w / 2 ? 255 : 0], i);
    }
  return sharp(px, { raw: { width: w, height: h, channels: 4 } })
    .png()
    .toBuffer();
}

test.each([
  ['2k', 2],
  ['3k', 3],
  ['4k', 4],
] as const)('a sharp job at %s succeeds with the output size of the target and its alpha kept', async (target, scale) => {
  const acct = await newAccount(jobs.svc);
  const res = await acct.client.upload(await rgbaImage(), { target, format: 'png', quality: 'sharp' });
  expect(res.status).toBe(202);
  const job = await waitForJob(acct.client, res.body.id, isFinal, 300_000);
  expect([job.status, job.quality, job.target]).toEqual(['succeeded', 'sharp', target]);
  const out = await downloadResult(acct.client, job.id);
  const { data, info } = await sharp(out.bytes).raw().toBuffer({ resolveWithObject: true });
  expect([info.width, info.height, info.channels]).toEqual([24 * scale, 16 * scale, 4]);
  // Alpha: opaque on the left, transparent on the right, as in the source.
  const alphaAt = (x: number, y: number) => data[(y * info.width + x) * 4 + 3];
  expect([alphaAt(2, 2), alphaAt(info.width - 3, 2)]).toEqual([255, 0]);
});

test('an input above 100,000 pixels asked for sharp is refused at submit with 400 image_too_large_to_upscale', async () => {
  const acct = await newAccount(jobs.svc);
  const big = await sharp({ create: { width: 400, height: 251, channels: 3, background: '#808080' } })
    .png()
    .toBuffer();
  const refused = await acct.client.upload(big, { target: '2k', quality: 'sharp' });
  expectError(refused, 400, 'image_too_large_to_upscale');
  // The message names the tier's bound, not the output limit (which a 400x251 image is far from).
  expect(refused.body.error.message).toBe('The image is too large for the sharp tier: it takes at most 100,000 input pixels.');
  expectError(
    await acct.client.upload(big, { target: '2k', quality: 'sharp', content: 'illustration' }),
    400,
    'image_too_large_to_upscale',
  );
  // The same image at the fidelity tiers is accepted.
  expect((await acct.client.upload(big, { target: '2k', quality: 'fast' })).status).toBe(202);
});
