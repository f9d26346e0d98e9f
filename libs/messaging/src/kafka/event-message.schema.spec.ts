import { decodeEventMessage, encodeEventMessage, InvalidMessageError } from './event-message.schema';

const event = {
  position: 7,
  streamId: 'job-job_0190',
  version: 2,
  type: 'JobStarted',
  data: { attempt: 1 },
  metadata: { correlationId: 'job_0190', producer: 'processor' },
  createdAt: '2026-01-01T00:00:07.000Z',
};

describe('event message schema', () => {
  it('round-trips a stored event through the message value', () => {
    expect(decodeEventMessage('t', encodeEventMessage(event))).toEqual(event);
  });

  it('names what is wrong with an invalid message', () => {
    const bad = Buffer.from(JSON.stringify({ ...event, version: 0, streamId: '' }));
    expect(() => decodeEventMessage('upscale.job-events.v1', bad)).toThrow(
      new InvalidMessageError(
        'upscale.job-events.v1',
        'streamId: String must contain at least 1 character(s); version: Number must be greater than 0',
      ),
    );
    expect(() => decodeEventMessage('t', Buffer.from('{'))).toThrow('Invalid message on t: value is not JSON');
    expect(() => decodeEventMessage('t', null)).toThrow('Invalid message on t: empty value');
  });
});
