import sharp from 'sharp';
import { gradientImage } from '@upscaler/testing';
import {
  CREATE_VIEW_FIELDS,
  ISO_UTC,
  JOB_ID,
  downloadResult,
  succeededResult,
  expectError,
  expectUncharged,
  isFinal,
  newAccount,
  settledLedger,
  useJobsService,
  waitForJob,
} from './jobs-harness';
import {
  animatedWebp,
  gifImage,
  grayPng,
  jpegRotatedByExif,
  padPngTo,
  pngClaimingSize,
  pngWithGarbledIdat,
  pngWithMetadata,
} from './jobs-images';

/** Spec 4.1 (POST /upscale, multipart), spec 1 (formats, output size) and spec 8 (upload size). */

const MiB = 1024 * 1024;

const jobs = useJobsService();

describe('multipart upload (spec 4.1 A)', () => {
  test('answers 202 with exactly the create view, status queued, default target 2k (3 credits)', async () => {
    const acct = await newAccount(jobs.svc, { credits: 10 });
    const image = await gradientImage(16, 16);
    const res = await acct.client.upload(image, {}, { filename: 'cat.png', contentType: 'image/png' });
    expect(res.status).toBe(202);
    expect(Object.keys(res.body).sort()).toEqual(CREATE_VIEW_FIELDS);
    expect(res.body).toEqual({
      id: expect.stringMatching(JOB_ID),
      object: 'job',
      status: 'queued',
      target: '2k',
      filename: 'cat.png',
      credits: 3,
      source: { bytes: image.length, content_type: 'image/png', width: 16, height: 16 },
      created_at: expect.stringMatching(ISO_UTC),
    });
  });

  test.each([
    ['2k', 'png', 2, 'png', 'image/png'],
    ['3k', 'jpeg', 3, 'jpeg', 'image/jpeg'],
    ['4k', 'webp', 4, 'webp', 'image/webp'],
    ['2k', 'avif', 2, 'heif', 'image/avif'],
  ])(
    'target %s, format %s: the job succeeds with output = input x %i, in that format, without EXIF or ICC',
    async (target, format, scale, sharpFormat, contentType) => {
      const acct = await newAccount(jobs.svc, { credits: 10 });
      const input = await pngWithMetadata(24, 16);
      const res = await acct.client.upload(input, { target, format });
      expect(res.status).toBe(202);
      const job = await waitForJob(acct.client, res.body.id, isFinal);
      expect({
        status: job.status,
        error: job.error,
        format: job.format,
        target: job.target,
      }).toEqual({
        status: 'succeeded',
        error: null,
        format,
        target,
      });
      const file = await downloadResult(acct.client, job.id);
      expect({
        status: file.status,
        contentType: file.contentType,
        bytes: file.bytes.length,
      }).toEqual({
        status: 200,
        contentType,
        bytes: job.result.bytes,
      });
      expect(job.result.content_type).toBe(contentType);
      const meta = await sharp(file.bytes).metadata();
      expect({
        format: meta.format,
        width: meta.width,
        height: meta.height,
        exif: meta.exif,
        icc: meta.icc,
        xmp: meta.xmp,
        // spec 1: jpeg drops transparency, png/webp/avif keep it
        hasAlpha: meta.hasAlpha,
      }).toEqual({
        format: sharpFormat,
        width: 24 * scale,
        height: 16 * scale,
        exif: undefined,
        icc: undefined,
        xmp: undefined,
        hasAlpha: format !== 'jpeg',
      });
    },
  );

  test('EXIF orientation is applied before upscaling (docs/design.md §4): a 32x16 JPEG shown 16x32 comes out 32x64 at 2k', async () => {
    const acct = await newAccount(jobs.svc, { credits: 10 });
    const res = await acct.client.upload(await jpegRotatedByExif(32, 16), { format: 'png' }, { filename: 'rotated.jpg' });
    expect(res.status).toBe(202);
    const { meta } = await succeededResult(acct.client, res.body.id);
    expect({ width: meta.width, height: meta.height, orientation: meta.orientation }).toEqual({
      width: 32,
      height: 64,
      orientation: undefined,
    });
  });
});

describe('format detected from the bytes (spec 1)', () => {
  test('a PNG sent as photo.jpg with content type image/jpeg is accepted as image/png', async () => {
    const acct = await newAccount(jobs.svc, { credits: 10 });
    const png = await gradientImage(16, 16);
    const res = await acct.client.upload(png, {}, { filename: 'photo.jpg', contentType: 'image/jpeg' });
    expect(res.status).toBe(202);
    expect({ filename: res.body.filename, source: res.body.source }).toEqual({
      filename: 'photo.jpg',
      source: { bytes: png.length, content_type: 'image/png', width: 16, height: 16 },
    });
  });

  test.each(['jpeg', 'webp', 'avif'] as const)('a %s input is accepted and upscaled', async (format) => {
    const acct = await newAccount(jobs.svc, { credits: 10 });
    const input = await gradientImage(20, 12, format);
    const res = await acct.client.upload(input, {}, { filename: 'upload.bin', contentType: 'application/octet-stream' });
    expect({ status: res.status, source: res.body.source }).toEqual({
      status: 202,
      source: { bytes: input.length, content_type: `image/${format}`, width: 20, height: 12 },
    });
    const { meta } = await succeededResult(acct.client, res.body.id);
    expect({ format: meta.format, width: meta.width, height: meta.height }).toEqual({ format: 'png', width: 40, height: 24 });
  });

  test('a grayscale input stays grayscale (docs/design.md §4)', async () => {
    const acct = await newAccount(jobs.svc, { credits: 10 });
    const input = await grayPng(16, 16);
    expect((await sharp(input).metadata()).channels).toBe(1);
    const res = await acct.client.upload(input);
    const { meta } = await succeededResult(acct.client, res.body.id);
    expect({ channels: meta.channels, space: meta.space, width: meta.width }).toEqual({ channels: 1, space: 'b-w', width: 32 });
  });

  test('an animated WebP: 400 animated_image, nothing reserved (docs/design.md §4)', async () => {
    const acct = await newAccount(jobs.svc, { credits: 10 });
    expectError(await acct.client.upload(await animatedWebp(), {}, { filename: 'anim.webp' }), 400, 'animated_image');
    await expectUncharged(acct);
  });

  test('a header announcing 100000 x 100000 pixels: 400 image_dimensions_too_large before decoding', async () => {
    const acct = await newAccount(jobs.svc, { credits: 10 });
    const bomb = pngClaimingSize(await gradientImage(8, 8), 100_000, 100_000);
    expectError(await acct.client.upload(bomb), 400, 'image_dimensions_too_large');
    await expectUncharged(acct);
  });

  test('a GIF answers 415 unsupported_media_type, with no job and nothing reserved', async () => {
    const acct = await newAccount(jobs.svc, { credits: 10 });
    const res = await acct.client.upload(await gifImage(), {}, { filename: 'anim.gif', contentType: 'image/gif' });
    expectError(res, 415, 'unsupported_media_type');
    await expectUncharged(acct);
    expect((await acct.client.get('/jobs')).body.data).toEqual([]);
  });

  test('a text file renamed .png answers 415 unsupported_media_type', async () => {
    const acct = await newAccount(jobs.svc, { credits: 10 });
    const res = await acct.client.upload(
      Buffer.from('just some text, not an image\n'.repeat(20)),
      {},
      {
        filename: 'notes.png',
        contentType: 'image/png',
      },
    );
    expectError(res, 415, 'unsupported_media_type');
    await expectUncharged(acct);
  });
});

describe('upload size limit (spec 8: 10 MB)', () => {
  test('an upload one byte over 10 MiB answers 413 payload_too_large and reserves nothing', async () => {
    const acct = await newAccount(jobs.svc, { credits: 10 });
    const res = await acct.client.upload(padPngTo(await gradientImage(16, 16), 10 * MiB + 1));
    expectError(res, 413, 'payload_too_large');
    await expectUncharged(acct);
    expect((await acct.client.get('/jobs')).body.data).toEqual([]);
  });

  test('an upload of exactly 10 MiB is accepted', async () => {
    const acct = await newAccount(jobs.svc, { credits: 10 });
    const res = await acct.client.upload(padPngTo(await gradientImage(16, 16), 10 * MiB));
    expect(res.status).toBe(202);
    expect(res.body.source).toEqual({
      bytes: 10 * MiB,
      content_type: 'image/png',
      width: 16,
      height: 16,
    });
  });
});

describe('invalid requests answer 400 with their code', () => {
  test('target 8k: invalid_target', async () => {
    const acct = await newAccount(jobs.svc, { credits: 10 });
    expectError(await acct.client.upload(await gradientImage(16, 16), { target: '8k' }), 400, 'invalid_target');
  });

  test('format gif: invalid_format', async () => {
    const acct = await newAccount(jobs.svc, { credits: 10 });
    expectError(await acct.client.upload(await gradientImage(16, 16), { format: 'gif' }), 400, 'invalid_format');
  });

  test('a multipart body without the image file: invalid_request', async () => {
    const acct = await newAccount(jobs.svc, { credits: 10 });
    const form = new FormData();
    form.append('target', '2k');
    expectError(await acct.client.request('POST', '/upscale', { form }), 400, 'invalid_request');
  });

  test('image sent as a text field instead of a file: invalid_request', async () => {
    const acct = await newAccount(jobs.svc, { credits: 10 });
    const form = new FormData();
    form.append('image', 'iVBORw0KGgo=');
    expectError(await acct.client.request('POST', '/upscale', { form }), 400, 'invalid_request');
  });

  test('path components are removed from the file name', async () => {
    const acct = await newAccount(jobs.svc, { credits: 10 });
    const res = await acct.client.upload(await gradientImage(16, 16), {}, { filename: '../../etc/secret.png' });
    expect({ status: res.status, filename: res.body.filename }).toEqual({
      status: 202,
      filename: 'secret.png',
    });
  });

  test('unknown fields are tolerated (spec 9, rule 2)', async () => {
    const acct = await newAccount(jobs.svc, { credits: 10 });
    const res = await acct.client.upload(await gradientImage(16, 16), {
      target: '2k',
      colour: 'blue',
      webhook: 'x',
    });
    expect(res.status).toBe(202);
    expect(res.body.target).toBe('2k');
  });

  test('none of the refused requests reserved credits or created a job', async () => {
    const acct = await newAccount(jobs.svc, { credits: 10 });
    const image = await gradientImage(16, 16);
    const answers = [
      (await acct.client.upload(image, { target: '1k' })).status,
      (await acct.client.upload(image, { format: 'bmp' })).status,
      (await acct.client.post('/upscale', { target: '2k' })).status,
    ];
    expect(answers).toEqual([400, 400, 400]);
    await expectUncharged(acct);
    expect((await acct.client.get('/jobs')).body.data).toEqual([]);
  });
});

describe('an image that decodes in the header but is corrupt inside (spec 3: failed, credits refunded)', () => {
  test('a PNG with garbled IDAT data is accepted, then fails with corrupt_image and its credits are refunded', async () => {
    const acct = await newAccount(jobs.svc, { credits: 10 });
    const res = await acct.client.upload(pngWithGarbledIdat(await gradientImage(32, 32)), { target: '3k' });
    expect(res.status).toBe(202);
    expect(res.body.credits).toBe(6);
    const job = await waitForJob(acct.client, res.body.id, isFinal);
    expect({
      status: job.status,
      error: job.error,
      result: job.result,
      finished_at: typeof job.finished_at,
    }).toEqual({
      status: 'failed',
      error: { code: 'corrupt_image', message: expect.any(String) },
      result: null,
      finished_at: 'string',
    });
    expect(await settledLedger(acct)).toEqual({
      balance: 10,
      reserved: 0,
      charged: 0,
    });
  });

  test('a JPEG whose scan ends early but is closed by its end marker fails with corrupt_image, refunded (not upscaled grey and charged)', async () => {
    const acct = await newAccount(jobs.svc, { credits: 10 });
    const jpeg = await gradientImage(256, 256, 'jpeg');
    // The header still promises 256x256; libjpeg reads the missing rows as grey and only warns.
    const shortScan = Buffer.concat([jpeg.subarray(0, Math.floor(jpeg.length / 2)), Buffer.from([0xff, 0xd9])]);
    expect((await sharp(shortScan).metadata()).width).toBe(256);
    const res = await acct.client.upload(shortScan, {}, { filename: 'short-scan.jpg' });
    expect(res.status).toBe(202);
    const job = await waitForJob(acct.client, res.body.id, isFinal);
    expect({ status: job.status, code: job.error?.code, result: job.result }).toEqual({
      status: 'failed',
      code: 'corrupt_image',
      result: null,
    });
    expect(await settledLedger(acct)).toEqual({ balance: 10, reserved: 0, charged: 0 });
  });

  test('a truncated JPEG is accepted, then fails with corrupt_image and its credits are refunded', async () => {
    const acct = await newAccount(jobs.svc, { credits: 10 });
    const jpeg = await gradientImage(64, 64, 'jpeg');
    const res = await acct.client.upload(jpeg.subarray(0, Math.floor(jpeg.length / 2)), {}, { filename: 'cut.jpg' });
    expect(res.status).toBe(202);
    expect(res.body.source.content_type).toBe('image/jpeg');
    const job = await waitForJob(acct.client, res.body.id, isFinal);
    expect({ status: job.status, code: job.error?.code }).toEqual({
      status: 'failed',
      code: 'corrupt_image',
    });
    expect(await settledLedger(acct)).toEqual({
      balance: 10,
      reserved: 0,
      charged: 0,
    });
  });
});
