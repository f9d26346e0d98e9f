import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';
import sharp from 'sharp';
import {
  expectError,
  expectUncharged,
  newAccount,
  STANDALONE,
  succeededResult,
  testStandalone,
  useJobsService,
  type JobsService,
} from './jobs-harness';

/**
 * Proof through the API: `content: illustration` at `sharp`, the tier where the illustration
 * network won (docs/engine.md, "The content hint"), runs Real-ESRGAN x4plus anime at 2k, 3k and 4k, with the
 * target's output size; JobSucceeded records that network; the job view shows the hint; elsewhere the hint changes
 * nothing; a value other than photo or illustration answers 400 invalid_request in both request forms.
 */

const jobs = useJobsService();

/** 24x16: a flat-colour drawing with dark outlines, as a small screenshot or a piece of line art. */
function drawing(): Promise<Buffer> {
  const svg =
    '<svg xmlns="http://www.w3.org/2000/svg" width="24" height="16"><rect width="24" height="16" fill="#fbfaf5"/>' +
    '<circle cx="8" cy="8" r="5" fill="#e76f51" stroke="#222" stroke-width="1.5"/>' +
    '<rect x="14" y="3" width="8" height="10" fill="#2a9d8f" stroke="#222"/></svg>';
  return sharp(Buffer.from(svg)).removeAlpha().png().toBuffer();
}

/** The network the job's JobSucceeded event records (engine.network), read from the standalone's own database. */
async function recordedNetwork(svc: JobsService, jobId: string): Promise<string | undefined> {
  const password = readFileSync(join(svc.dataDir, 'postgres-password'), 'utf8').trim();
  const port = readFileSync(join(svc.dataDir, 'postgres-port'), 'utf8').trim();
  const db = new Client({ connectionString: `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/upscaler` });
  await db.connect();
  try {
    const r = await db.query<{ network: string }>(
      `SELECT data->'engine'->>'network' AS network FROM events WHERE stream_id = $1 AND type = 'JobSucceeded'`,
      [`job-${jobId}`],
    );
    expect(r.rows.length).toBe(1);
    return r.rows[0]?.network;
  } finally {
    await db.end();
  }
}

/** What the processors' engine metric counts per network (every process of the service; both modes). */
async function engineRunsOf(svc: JobsService, network: string): Promise<number> {
  let n = 0;
  for (const url of svc.serviceUrls ?? [svc.baseUrl]) {
    const text = await (await fetch(`${url}/metrics`)).text();
    for (const m of text.matchAll(/^upscaler_engine_duration_seconds_count\{([^}]*)\} (\d+)$/gm)) {
      if (m[1].includes(`network="${network}"`)) n += Number(m[2]);
    }
  }
  return n;
}

test.each([
  ['2k', 2, 'realesrgan-x4plus-anime-to-x2'],
  ['3k', 3, 'realesrgan-x4plus-anime-to-x3'],
  ['4k', 4, 'realesrgan-x4plus-anime'],
] as const)('a content: illustration job at sharp %s succeeds at x%i, shows its hint, and runs %s', async (target, scale, network) => {
  const acct = await newAccount(jobs.svc);
  const runsBefore = await engineRunsOf(jobs.svc, network);
  const res = await acct.client.upload(await drawing(), { target, format: 'png', quality: 'sharp', content: 'illustration' });
  expect(res.status).toBe(202);
  const { job, meta } = await succeededResult(acct.client, res.body.id);
  expect([job.quality, job.content, job.target, job.result.width, job.result.height]).toEqual([
    'sharp',
    'illustration',
    target,
    24 * scale,
    16 * scale,
  ]);
  expect([meta.width, meta.height]).toEqual([24 * scale, 16 * scale]);
  expect(await engineRunsOf(jobs.svc, network)).toBe(runsBefore + 1);
  if (STANDALONE) expect(await recordedNetwork(jobs.svc, job.id)).toBe(network);
});

testStandalone(
  'JobSucceeded records the network that ran: x4plus for a photo (the default), the tier network for an illustration at balanced',
  async () => {
    const acct = await newAccount(jobs.svc);
    const image = await drawing();
    const photo = await acct.client.upload(image, { target: '4k', quality: 'sharp' });
    const fidelity = await acct.client.upload(image, { target: '4k', quality: 'balanced', content: 'illustration' });
    const [p, f] = [await succeededResult(acct.client, photo.body.id), await succeededResult(acct.client, fidelity.body.id)];
    expect([p.job.content, p.job.quality, await recordedNetwork(jobs.svc, p.job.id)]).toEqual(['photo', 'sharp', 'realesrgan-x4plus']);
    // balanced runs the same network for both hints (the illustration networks lost there): two int8 passes where the
    // CPU has VNNI, one float32 pass elsewhere.
    expect([f.job.content, f.job.quality, await recordedNetwork(jobs.svc, f.job.id)]).toEqual([
      'illustration',
      'balanced',
      expect.stringMatching(/^ours-balanced-x4(-int8-pair)?$/),
    ]);
    expect([f.meta.width, f.meta.height]).toEqual([96, 64]);
  },
);

test('a content other than photo or illustration answers 400 invalid_request, multipart and JSON alike, and charges nothing', async () => {
  const acct = await newAccount(jobs.svc);
  const image = await drawing();
  for (const content of ['drawing', 'Illustration', 'anime']) {
    const multipart = await acct.client.upload(image, { target: '4k', quality: 'sharp', content });
    expectError(multipart, 400, 'invalid_request');
    expect(multipart.body.error.message).toBe('content must be one of photo, illustration.');
    const json = await acct.client.post('/upscale', { image_url: 'https://images.example/drawing.png', quality: 'sharp', content });
    expectError(json, 400, 'invalid_request');
    expect(json.body.error.message).toBe('content must be one of photo, illustration.');
  }
  expectError(await acct.client.post('/upscale', { image_url: 'https://images.example/drawing.png', content: 7 }), 400, 'invalid_request');
  await expectUncharged(acct);
});

test('content left out or empty (a form sends "") is photo', async () => {
  const acct = await newAccount(jobs.svc);
  const image = await drawing();
  const ids = [
    (await acct.client.upload(image, { target: '2k', quality: 'fast' })).body.id,
    (await acct.client.upload(image, { target: '2k', quality: 'fast', content: '' })).body.id,
  ];
  for (const id of ids) expect((await succeededResult(acct.client, id)).job.content).toBe('photo');
});
