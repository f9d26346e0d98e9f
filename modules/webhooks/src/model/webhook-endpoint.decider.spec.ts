import type { WebhookEventType } from '@upscaler/contracts';
import type { WebhookEndpointCreatedData, WebhookEndpointEvent } from './webhook.events';
import { foldEvents, DeciderSpecification, T0, at } from '@upscaler/domain';
import type { CreateWebhookEndpoint, RotateWebhookEndpointSecret } from './webhook-endpoint.commands';
import { webhookEndpointDecider } from './webhook-endpoint.decider';
import { endpointWants, signingSecrets } from './webhook-endpoint.state';
import { toWebhookEndpointView } from './webhook-endpoint.views';

const spec = DeciderSpecification.for(webhookEndpointDecider);
const WE = 'we_0190a1b2c3d47e8f9a0b1c2d3e4f5a6e';
const ACCT = 'acct_0190a1b2c3d47e8f9a0b1c2d3e4f5a6c';
const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

const createCommand = (overrides: Partial<CreateWebhookEndpoint['data']> = {}): CreateWebhookEndpoint => ({
  type: 'CreateWebhookEndpoint',
  data: {
    endpointId: WE,
    accountId: ACCT,
    url: 'https://hooks.example.com/upscaler',
    events: ['job.succeeded', 'job.failed'],
    description: 'prod',
    secret: SECRET,
    now: T0,
    ...overrides,
  },
});
const createdData: WebhookEndpointCreatedData = {
  endpointId: WE,
  accountId: ACCT,
  url: 'https://hooks.example.com/upscaler',
  events: ['job.succeeded', 'job.failed'],
  description: 'prod',
  secret: SECRET,
  createdAt: T0,
};
const created: WebhookEndpointEvent = { type: 'WebhookEndpointCreated', data: createdData };
const NEW_SECRET = 'whsec_bmV3LXNlY3JldC1uZXctc2VjcmV0LTEyMzQ1';
const NEWER_SECRET = 'whsec_bmV3ZXItc2VjcmV0LW5ld2VyLXNlY3JldC0x';
const enabledAgain: WebhookEndpointEvent = {
  type: 'WebhookEndpointEnabled',
  data: { endpointId: WE, accountId: ACCT, enabledAt: at(7_000) },
};
const rotate = (secret: string, overlapSeconds: number, nowMs: number): RotateWebhookEndpointSecret => ({
  type: 'RotateWebhookEndpointSecret',
  data: { secret, overlapSeconds, now: at(nowMs) },
});
const rotated = (
  secret: string,
  previousSecret: string | null,
  previousSecretExpiresAt: string | null,
  rotatedAt: string,
): WebhookEndpointEvent => ({
  type: 'WebhookEndpointSecretRotated',
  data: { endpointId: WE, accountId: ACCT, secret, previousSecret, previousSecretExpiresAt, rotatedAt },
});
const disabled = (reason: 'gone' | 'deleted'): WebhookEndpointEvent => ({
  type: 'WebhookEndpointDisabled',
  data: { endpointId: WE, accountId: ACCT, reason, disabledAt: at(5_000) },
});

describe('webhook endpoint decider (docs/design.md §4 and 6)', () => {
  it('CreateWebhookEndpoint registers an enabled endpoint with its secret', () => {
    spec.given([]).when(createCommand()).then([created]);
  });

  it('repeated event types are kept once', () => {
    spec
      .given([])
      .when(createCommand({ events: ['job.failed', 'job.failed', 'job.cancelled'] }))
      .then([{ type: 'WebhookEndpointCreated', data: { ...createdData, events: ['job.failed', 'job.cancelled'] } }]);
  });

  it('no event types, an unknown one, or a secret without whsec_ is invalid', () => {
    spec
      .given([])
      .when(createCommand({ events: [] }))
      .thenThrows('invalid_request');
    spec
      .given([])
      .when(createCommand({ events: ['job.started' as WebhookEventType] }))
      .thenThrows('invalid_request', 'Unknown event types: job.started.');
    spec
      .given([])
      .when(createCommand({ secret: 'MfKQ9r8' }))
      .thenThrows('invalid_request');
  });

  it('creating an existing endpoint is a conflict', () => {
    spec.given([created]).when(createCommand()).thenThrows('conflict');
  });

  it.each(['gone', 'deleted'] as const)('DisableWebhookEndpoint (%s) disables it', (reason) => {
    spec
      .given([created])
      .when({ type: 'DisableWebhookEndpoint', data: { reason, now: at(5_000) } })
      .then([disabled(reason)]);
  });

  it.each([
    ['gone', 'gone'],
    ['deleted', 'gone'],
    ['deleted', 'deleted'],
  ] as const)('disabled (%s) then disabled again (%s) changes nothing', (first, again) => {
    spec
      .given([created, disabled(first)])
      .when({ type: 'DisableWebhookEndpoint', data: { reason: again, now: at(9_000) } })
      .thenNothing();
  });

  it('deleting an endpoint a 410 disabled records the deletion (it can no longer be enabled)', () => {
    spec
      .given([created, disabled('gone')])
      .when({ type: 'DisableWebhookEndpoint', data: { reason: 'deleted', now: at(9_000) } })
      .then([{ type: 'WebhookEndpointDisabled', data: { endpointId: WE, accountId: ACCT, reason: 'deleted', disabledAt: at(9_000) } }]);
  });

  it('disabling an endpoint that does not exist is not_found', () => {
    spec
      .given([])
      .when({ type: 'DisableWebhookEndpoint', data: { reason: 'deleted', now: at(1) } })
      .thenThrows('not_found');
  });

  it('the view shows the secret only when asked (creation answer), the status and why it is disabled', () => {
    const base = {
      id: WE,
      object: 'webhook_endpoint',
      url: 'https://hooks.example.com/upscaler',
      events: ['job.succeeded', 'job.failed'],
      description: 'prod',
      status: 'enabled',
      created_at: T0,
      disabled_reason: null,
      secret_rotated_at: null,
      previous_secret_expires_at: null,
    };
    const enabled = foldEvents(webhookEndpointDecider, [created]);
    expect(toWebhookEndpointView(enabled, { includeSecret: true })).toEqual({ ...base, secret: SECRET });
    expect(toWebhookEndpointView(enabled)).toEqual(base);
    expect(toWebhookEndpointView(foldEvents(webhookEndpointDecider, [created, disabled('gone')]))).toEqual({
      ...base,
      status: 'disabled',
      disabled_reason: 'gone',
    });
    expect(toWebhookEndpointView(foldEvents(webhookEndpointDecider, [created, disabled('deleted')]))).toEqual({
      ...base,
      status: 'disabled',
      disabled_reason: 'deleted',
    });
    expect(toWebhookEndpointView(foldEvents(webhookEndpointDecider, [created, disabled('gone'), enabledAgain]))).toEqual(base);
  });

  it('a state folded before rotation existed (no rotation fields) has a view with nulls and signs with its secret', () => {
    const old = { status: 'enabled', endpoint: createdData, disabledAt: null, disabledReason: null } as const;
    expect([
      toWebhookEndpointView(old).secret_rotated_at,
      toWebhookEndpointView(old).previous_secret_expires_at,
      signingSecrets(old, at(0)),
    ]).toEqual([null, null, [SECRET]]);
  });

  it('an enabled endpoint wants the event types it subscribed to; a disabled one wants none', () => {
    const enabled = foldEvents(webhookEndpointDecider, [created]);
    const off = foldEvents(webhookEndpointDecider, [created, disabled('deleted')]);
    expect([endpointWants(enabled, 'job.succeeded'), endpointWants(enabled, 'job.cancelled'), endpointWants(off, 'job.succeeded')]).toEqual(
      [true, false, false],
    );
  });
});

describe('re-enabling an endpoint', () => {
  const enable = (nowMs: number) => ({ type: 'EnableWebhookEndpoint', data: { now: at(nowMs) } }) as const;

  it('an endpoint a 410 disabled is enabled again, and wants its event types again', () => {
    const state = spec
      .given([created, disabled('gone')])
      .when(enable(7_000))
      .then([enabledAgain]);
    expect([state.status, state.disabledAt, state.disabledReason, endpointWants(state, 'job.succeeded')]).toEqual([
      'enabled',
      null,
      null,
      true,
    ]);
  });

  it('enabling an enabled endpoint changes nothing', () => {
    spec.given([created]).when(enable(7_000)).thenNothing();
    spec
      .given([created, disabled('gone'), enabledAgain])
      .when(enable(8_000))
      .thenNothing();
  });

  it('a deleted endpoint stays deleted: webhook_endpoint_deleted', () => {
    spec
      .given([created, disabled('deleted')])
      .when(enable(7_000))
      .thenThrows('webhook_endpoint_deleted', `Webhook endpoint ${WE} was deleted; register a new one.`);
    spec
      .given([created, disabled('gone'), disabled('deleted')])
      .when(enable(7_000))
      .thenThrows('webhook_endpoint_deleted');
  });

  it('enabling an endpoint that does not exist is not_found', () => {
    spec.given([]).when(enable(1)).thenThrows('not_found');
  });

  it('a 410 after re-enabling disables it again', () => {
    spec
      .given([created, disabled('gone'), enabledAgain])
      .when({ type: 'DisableWebhookEndpoint', data: { reason: 'gone', now: at(8_000) } })
      .then([{ type: 'WebhookEndpointDisabled', data: { endpointId: WE, accountId: ACCT, reason: 'gone', disabledAt: at(8_000) } }]);
  });
});

describe('rotating the secret', () => {
  it('a new secret signs from now; the previous one too until the overlap ends (default 24 h)', () => {
    const state = spec
      .given([created])
      .when(rotate(NEW_SECRET, 86_400, 10_000))
      .then([rotated(NEW_SECRET, SECRET, at(10_000 + 86_400_000), at(10_000))]);
    expect([
      signingSecrets(state, at(10_000)),
      signingSecrets(state, at(10_000 + 86_399_999)),
      signingSecrets(state, at(10_000 + 86_400_000)),
    ]).toEqual([[NEW_SECRET, SECRET], [NEW_SECRET, SECRET], [NEW_SECRET]]);
    expect(toWebhookEndpointView(state, { includeSecret: true })).toMatchObject({
      secret: NEW_SECRET,
      secret_rotated_at: at(10_000),
      previous_secret_expires_at: at(10_000 + 86_400_000),
    });
  });

  it('overlap 0: the previous secret stops signing at once and none is kept', () => {
    const state = spec
      .given([created])
      .when(rotate(NEW_SECRET, 0, 10_000))
      .then([rotated(NEW_SECRET, null, null, at(10_000))]);
    expect([signingSecrets(state, at(10_000)), toWebhookEndpointView(state).previous_secret_expires_at]).toEqual([[NEW_SECRET], null]);
  });

  it('a second rotation within the overlap keeps only the newest previous secret', () => {
    const state = spec
      .given([created, rotated(NEW_SECRET, SECRET, at(10_000 + 3_600_000), at(10_000))])
      .when(rotate(NEWER_SECRET, 60, 20_000))
      .then([rotated(NEWER_SECRET, NEW_SECRET, at(80_000), at(20_000))]);
    expect([signingSecrets(state, at(20_000)), signingSecrets(state, at(80_000))]).toEqual([[NEWER_SECRET, NEW_SECRET], [NEWER_SECRET]]);
  });

  it('an endpoint a 410 disabled can rotate (to be ready before enabling it); a deleted one cannot', () => {
    spec
      .given([created, disabled('gone')])
      .when(rotate(NEW_SECRET, 0, 10_000))
      .then([rotated(NEW_SECRET, null, null, at(10_000))]);
    spec
      .given([created, disabled('deleted')])
      .when(rotate(NEW_SECRET, 0, 10_000))
      .thenThrows('webhook_endpoint_deleted');
  });

  it.each([-1, 604_801, 1.5, Number.NaN])('overlap %p seconds is invalid (0 to 604800)', (overlap) => {
    spec
      .given([created])
      .when(rotate(NEW_SECRET, overlap, 10_000))
      .thenThrows('invalid_request', 'overlap_seconds must be an integer from 0 to 604800.');
  });

  it('the 7-day maximum is accepted; a secret without whsec_ and an unknown endpoint are refused', () => {
    spec
      .given([created])
      .when(rotate(NEW_SECRET, 604_800, 0))
      .then([rotated(NEW_SECRET, SECRET, at(604_800_000), at(0))]);
    spec
      .given([created])
      .when(rotate('bmV3', 60, 0))
      .thenThrows('invalid_request', 'A webhook secret starts with whsec_.');
    spec
      .given([])
      .when(rotate(NEW_SECRET, 60, 0))
      .thenThrows('not_found');
  });
});
