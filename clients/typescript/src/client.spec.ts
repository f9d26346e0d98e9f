import { Upscaler } from './client';

/**
 * The wait loop against a scripted service: before the service knew `Prefer: wait` (it answers at once, without
 * Preference-Applied) and after (it holds each poll and says so). The job goes queued, processing (with
 * progress where the service reports it), succeeded.
 */
function fakeService(opts: { applies: boolean; views: Array<Record<string, unknown>> }) {
  const requests: Array<{ method: string; url: string; headers: Headers; at: number; body: unknown }> = [];
  const views = [...opts.views];
  const fetchImpl = (async (url: string, init: RequestInit) => {
    const headers = new Headers(init.headers);
    requests.push({ method: init.method ?? 'GET', url, headers, at: Date.now(), body: init.body });
    const json = (status: number, body: unknown, extra: Record<string, string> = {}) =>
      new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...extra } });
    if (init.method === 'POST') return json(202, { id: 'job_1', object: 'job', status: 'queued', target: '2k', credits: 3 });
    const view = views.length > 1 ? views.shift()! : views[0]!;
    const prefer = headers.get('prefer');
    return json(200, { id: 'job_1', object: 'job', ...view }, opts.applies && prefer ? { 'preference-applied': prefer } : {});
  }) as unknown as typeof fetch;
  return { fetchImpl, requests };
}

const views = [
  { status: 'queued' },
  { status: 'processing', progress: 0.25 },
  { status: 'processing', progress: 0.75 },
  { status: 'succeeded', result: { bytes: 10 } },
];

describe('Upscaler wait', () => {
  it('a service that ignores Prefer: polls with Prefer: wait=N, pausing 0.5 s and more between polls, until final', async () => {
    const svc = fakeService({ applies: false, views });
    const seen: Array<[string, unknown]> = [];
    const client = new Upscaler({ apiKey: 'usk_k', baseUrl: 'http://h:1/api/v1', fetch: svc.fetchImpl });
    const job = await client.upscale(new Uint8Array([1, 2, 3]), {
      wait: true,
      onProgress: (j) => seen.push([j.status, (j as { progress?: number }).progress]),
    });
    expect(job.status).toBe('succeeded');
    expect(seen).toEqual([
      ['queued', undefined],
      ['queued', undefined],
      ['processing', 0.25],
      ['processing', 0.75],
      ['succeeded', undefined],
    ]);
    const [post, ...polls] = svc.requests;
    expect(post!.headers.get('prefer')).toBe('wait=60');
    expect(post!.headers.get('idempotency-key')).toMatch(/^[0-9a-f-]{36}$/);
    expect(polls.map((p) => [p.url, p.headers.get('prefer')])).toEqual(Array(4).fill(['http://h:1/api/v1/jobs/job_1', 'wait=60']));
    const gaps = polls.slice(1).map((p, i) => p.at - polls[i]!.at);
    expect(gaps[0]).toBeGreaterThanOrEqual(450);
    expect(gaps[1]).toBeGreaterThanOrEqual(700);
  });

  it('a service that holds polls (Preference-Applied): asks again at once', async () => {
    const svc = fakeService({ applies: true, views });
    const client = new Upscaler({ apiKey: 'usk_k', baseUrl: 'http://h:1', fetch: svc.fetchImpl });
    const t0 = Date.now();
    const job = await client.upscale(new Uint8Array([1]), { wait: true, pollWaitSeconds: 5 });
    expect(job.status).toBe('succeeded');
    expect(Date.now() - t0).toBeLessThan(400);
    expect(svc.requests.slice(1).map((r) => r.headers.get('prefer'))).toEqual(['wait=5', 'wait=5', 'wait=5', 'wait=5']);
  });

  it('wait: N seconds asks for at most N and answers the job as it is when they have passed', async () => {
    const svc = fakeService({ applies: false, views: [{ status: 'queued' }] });
    const client = new Upscaler({ apiKey: 'usk_k', baseUrl: 'http://h:1', fetch: svc.fetchImpl });
    const t0 = Date.now();
    const job = await client.upscale(new Uint8Array([1]), { wait: 1.2 });
    const took = Date.now() - t0;
    expect(job.status).toBe('queued');
    expect(took).toBeGreaterThanOrEqual(1150);
    expect(took).toBeLessThan(2500);
    expect(svc.requests[0]!.headers.get('prefer')).toBe('wait=2');
    expect(svc.requests[1]!.headers.get('prefer')).toBe('wait=2');
  });

  it('without wait: the create view at once, no Prefer', async () => {
    const svc = fakeService({ applies: false, views });
    const client = new Upscaler({ apiKey: 'usk_k', fetch: svc.fetchImpl });
    const job = await client.upscale(new Uint8Array([1]), { idempotencyKey: 'mine' });
    expect(job.status).toBe('queued');
    expect(svc.requests).toHaveLength(1);
    expect(svc.requests[0]!.url).toBe('http://127.0.0.1:8080/api/v1/upscale');
    expect(svc.requests[0]!.headers.get('prefer')).toBeNull();
    expect(svc.requests[0]!.headers.get('idempotency-key')).toBe('mine');
  });
});

describe('Upscaler output by pixel size', () => {
  it('sends width, height and fit instead of target: as form fields for bytes, as JSON numbers for a URL', async () => {
    const svc = fakeService({ applies: true, views });
    const client = new Upscaler({ apiKey: 'usk_k', baseUrl: 'http://h:1', fetch: svc.fetchImpl });
    await client.upscale(new Uint8Array([1, 2, 3]), { width: 1920, height: 1080, fit: 'cover', format: 'webp' });
    const form = svc.requests[0]!.body as FormData;
    expect([form.get('width'), form.get('height'), form.get('fit'), form.get('format'), form.has('target')]).toEqual([
      '1920',
      '1080',
      'cover',
      'webp',
      false,
    ]);
    await client.upscale('https://example.com/a.jpg', { height: 800 });
    const raw = svc.requests[1]!.body;
    expect(JSON.parse(typeof raw === 'string' ? raw : new TextDecoder().decode(raw as Uint8Array))).toEqual({
      image_url: 'https://example.com/a.jpg',
      height: 800,
    });
  });
});
