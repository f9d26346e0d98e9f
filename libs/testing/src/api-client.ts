/** A small typed client for end-to-end tests: real HTTP, exact answers kept (status, headers, body). */
export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface ApiRequestInit {
  json?: unknown;
  form?: FormData;
  raw?: string | Uint8Array;
  headers?: Record<string, string>;
  redirect?: 'manual' | 'follow' | 'error';
}

export class ApiClient {
  constructor(
    readonly apiUrl: string,
    private readonly token?: string,
  ) {}

  withToken(token: string): ApiClient {
    return new ApiClient(this.apiUrl, token);
  }

  /** `raw`: bytes sent as they are, with only the headers given (content-type included). */
  async request<T = any>(method: string, path: string, init: ApiRequestInit = {}): Promise<ApiResponse<T>> {
    const headers: Record<string, string> = { ...(init.headers ?? {}) };
    if (this.token && !('authorization' in Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v])))) {
      headers.authorization = `Bearer ${this.token}`;
    }
    let body: string | FormData | Uint8Array | undefined;
    if (init.raw !== undefined) {
      body = init.raw;
    } else if (init.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(init.json);
    } else if (init.form) {
      body = init.form;
    }
    const res = await fetch(`${this.apiUrl}${path}`, { method, headers, body, redirect: init.redirect ?? 'manual' });
    const text = await res.text();
    let parsed: unknown = undefined;
    try {
      parsed = text.length > 0 ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    return { status: res.status, headers: res.headers, body: parsed as T, text };
  }

  get<T = any>(path: string, headers?: Record<string, string>) {
    return this.request<T>('GET', path, { headers });
  }
  post<T = any>(path: string, json?: unknown, headers?: Record<string, string>) {
    return this.request<T>('POST', path, { json: json ?? {}, headers });
  }
  delete<T = any>(path: string) {
    return this.request<T>('DELETE', path);
  }

  /** multipart upload of `image` plus optional fields. */
  upload<T = any>(
    image: Buffer,
    fields: Record<string, string> = {},
    opts: { filename?: string; contentType?: string; headers?: Record<string, string> } = {},
  ) {
    const form = new FormData();
    form.append('image', new Blob([image], { type: opts.contentType ?? 'application/octet-stream' }), opts.filename ?? 'image.png');
    for (const [k, v] of Object.entries(fields)) form.append(k, v);
    return this.request<T>('POST', '/upscale', { form, headers: opts.headers });
  }

  /** Polls GET /jobs/{id} until the job is final (spec: every one to two seconds; faster here). */
  async waitForFinal(jobId: string, timeoutMs = 120_000): Promise<any> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const r = await this.get(`/jobs/${jobId}`);
      if (r.status !== 200) throw new Error(`GET /jobs/${jobId} answered ${r.status}: ${r.text}`);
      if (['succeeded', 'failed', 'cancelled'].includes(r.body.status)) return r.body;
      if (Date.now() > deadline) throw new Error(`job ${jobId} still ${r.body.status} after ${timeoutMs} ms`);
      await new Promise((res) => setTimeout(res, 150));
    }
  }
}

/** Operator set-up: an account with credits and a key with the given scopes. */
export async function createAccountWithKey(
  apiUrl: string,
  operatorToken: string,
  opts: { credits?: number; scopes?: string[]; name?: string; rateLimitPerMinute?: number } = {},
): Promise<{ accountId: string; key: string; keyId: string; client: ApiClient; operator: ApiClient }> {
  const operator = new ApiClient(apiUrl, operatorToken);
  const acct = await operator.post('/admin/accounts', { name: opts.name ?? 'test account', credits: opts.credits ?? 100 });
  if (acct.status !== 201) throw new Error(`create account: ${acct.status} ${acct.text}`);
  const key = await operator.post(`/admin/accounts/${acct.body.id}/keys`, {
    name: 'test key',
    scopes: opts.scopes ?? ['jobs:read', 'jobs:write', 'keys:read', 'keys:write', 'webhooks:read', 'webhooks:write'],
    ...(opts.rateLimitPerMinute ? { rate_limit_per_minute: opts.rateLimitPerMinute } : {}),
  });
  if (key.status !== 201) throw new Error(`create key: ${key.status} ${key.text}`);
  return { accountId: acct.body.id, key: key.body.key, keyId: key.body.id, client: new ApiClient(apiUrl, key.body.key), operator };
}
