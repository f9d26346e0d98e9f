import type { WebhookEndpointCreatedData, WebhookEndpointEvent, WebhookEventType } from '@upscaler/contracts';
import { foldEvents } from '../decider';
import { DeciderSpecification } from '../testing/decider-spec';
import { T0, at } from '../testing/job-fixtures';
import type { CreateWebhookEndpoint } from './webhook-endpoint.commands';
import { webhookEndpointDecider } from './webhook-endpoint.decider';
import { endpointWants } from './webhook-endpoint.state';
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
    spec.given([]).when(createCommand({ events: [] })).thenThrows('invalid_request');
    spec
      .given([])
      .when(createCommand({ events: ['job.started' as WebhookEventType] }))
      .thenThrows('invalid_request', 'Unknown event types: job.started.');
    spec.given([]).when(createCommand({ secret: 'MfKQ9r8' })).thenThrows('invalid_request');
  });

  it('creating an existing endpoint is a conflict', () => {
    spec.given([created]).when(createCommand()).thenThrows('conflict');
  });

  it.each(['gone', 'deleted'] as const)('DisableWebhookEndpoint (%s) disables it', (reason) => {
    spec.given([created]).when({ type: 'DisableWebhookEndpoint', data: { reason, now: at(5_000) } }).then([disabled(reason)]);
  });

  it('disabling twice changes nothing', () => {
    spec.given([created, disabled('gone')]).when({ type: 'DisableWebhookEndpoint', data: { reason: 'deleted', now: at(9_000) } }).thenNothing();
  });

  it('disabling an endpoint that does not exist is not_found', () => {
    spec.given([]).when({ type: 'DisableWebhookEndpoint', data: { reason: 'deleted', now: at(1) } }).thenThrows('not_found');
  });

  it('the view shows the secret only when asked (creation answer) and the status', () => {
    const base = {
      id: WE,
      object: 'webhook_endpoint',
      url: 'https://hooks.example.com/upscaler',
      events: ['job.succeeded', 'job.failed'],
      description: 'prod',
      status: 'enabled',
      created_at: T0,
    };
    const enabled = foldEvents(webhookEndpointDecider, [created]);
    expect(toWebhookEndpointView(enabled, { includeSecret: true })).toEqual({ ...base, secret: SECRET });
    expect(toWebhookEndpointView(enabled)).toEqual(base);
    expect(toWebhookEndpointView(foldEvents(webhookEndpointDecider, [created, disabled('gone')]))).toEqual({ ...base, status: 'disabled' });
  });

  it('an enabled endpoint wants the event types it subscribed to; a disabled one wants none', () => {
    const enabled = foldEvents(webhookEndpointDecider, [created]);
    const off = foldEvents(webhookEndpointDecider, [created, disabled('deleted')]);
    expect([
      endpointWants(enabled, 'job.succeeded'),
      endpointWants(enabled, 'job.cancelled'),
      endpointWants(off, 'job.succeeded'),
    ]).toEqual([true, false, false]);
  });
});
