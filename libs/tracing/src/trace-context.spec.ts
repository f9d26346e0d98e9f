import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTracing, stopTracing } from './start-tracing';
import { currentTraceCarrier, inSpan, startProducerSpan, tracer, untraced } from './trace-context';

const PARENT = { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01', tracestate: 'vendor=x' };

describe('producer spans of a batched Kafka send (the relay)', () => {
  it('while tracing is off, a message carries the context of the event that made it, unchanged', () => {
    expect(startProducerSpan('send upscale.job-events.v1', {}, PARENT)).toEqual({ span: undefined, headers: PARENT });
    expect(startProducerSpan('send upscale.job-events.v1', {}, { traceparent: PARENT.traceparent })).toEqual({
      span: undefined,
      headers: { traceparent: PARENT.traceparent },
    });
  });

  describe('with tracing on', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'upscaler-trace-spec-')), 'spans.jsonl');
    const spans = async (count: number): Promise<any[]> => {
      for (let i = 0; i < 100; i++) {
        const lines = existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n').filter(Boolean) : [];
        if (lines.length >= count) return lines.map((l) => JSON.parse(l));
        await new Promise((r) => setTimeout(r, 10));
      }
      throw new Error(`fewer than ${count} spans in ${file}`);
    };

    beforeAll(() => {
      expect(startTracing('spec', { UPSCALE_TRACES_FILE: file })).toBe(true);
    });
    afterAll(() => stopTracing());

    it('makes a PRODUCER span, child of the event’s context, and headers that carry that span', async () => {
      const { span, headers } = startProducerSpan('send upscale.job-events.v1', { 'messaging.system': 'kafka' }, PARENT);
      expect(span).toBeDefined();
      const [, traceId, spanId, flags] = headers.traceparent!.split('-');
      expect([traceId, flags, headers.tracestate]).toEqual(['0af7651916cd43dd8448eb211c80319c', '01', 'vendor=x']);
      expect(spanId).toBe(span!.spanContext().spanId);
      span!.end();
      const [written] = await spans(1);
      expect(written).toMatchObject({
        traceId: '0af7651916cd43dd8448eb211c80319c',
        spanId,
        parentSpanId: 'b7ad6b7169203331',
        name: 'send upscale.job-events.v1',
        kind: 3, // PRODUCER
        service: 'upscaler-spec',
        attributes: { 'messaging.system': 'kafka' },
        links: [],
      });
    });

    it('starts no trace for a message without a context', () => {
      expect(startProducerSpan('send upscale.job-events.v1', {}, {})).toEqual({ span: undefined, headers: {} });
      expect(startProducerSpan('send upscale.job-events.v1', {}, null)).toEqual({ span: undefined, headers: {} });
    });

    it('untraced: nothing inside records a span or injects a context, even inside a traced operation', async () => {
      await inSpan('outer', {}, PARENT, async () => {
        expect(currentTraceCarrier().traceparent).toMatch(/^00-0af7651916cd43dd8448eb211c80319c-/);
        untraced(() => {
          const inner = tracer.startSpan('would-be-kafka-send');
          expect(inner.isRecording()).toBe(false);
          inner.end();
          expect(currentTraceCarrier()).toEqual({});
        });
      });
      const written = await spans(2);
      expect(written.map((s) => s.name)).toEqual(['send upscale.job-events.v1', 'outer']);
    });
  });
});
