import { SpanKind, SpanStatusCode, trace, type Span } from '@opentelemetry/api';

const tracer = trace.getTracer('@homing/platform');

/**
 * Runs `work` inside a new active span (a no-op when tracing is off) and ends it with the outcome, so an RPC
 * call, its handling and an event's handling show as linked steps of one trace.
 */
export async function withSpan<T>(name: string, kind: SpanKind, attributes: Record<string, string>, work: (span: Span) => Promise<T>): Promise<T> {
  return tracer.startActiveSpan(name, { kind, attributes }, async (span) => {
    try {
      return await work(span);
    } catch (error) {
      span.recordException(error as Error);
      span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error).message });
      throw error;
    } finally {
      span.end();
    }
  });
}

export { SpanKind };
