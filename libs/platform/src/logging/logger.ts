import { trace } from '@opentelemetry/api';
import pino, { type DestinationStream, type Logger } from 'pino';
import { requestContext } from '../context';
import { REDACTED_PATHS } from './redact';

export interface LoggingOptions {
  service: string;
  level: string;
  pretty: boolean;
}

/** Structured JSON logs (pino) with the service, and the correlation id and trace id of the work in hand, on every line. */
export function createLogger(options: LoggingOptions, destination?: DestinationStream): Logger {
  return pino(
    {
      level: options.level,
      base: { service: options.service },
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      transport: options.pretty && !destination ? { target: 'pino-pretty', options: { singleLine: true, translateTime: 'HH:MM:ss.l' } } : undefined,
      mixin() {
        const context = requestContext.current();
        const span = trace.getActiveSpan()?.spanContext();
        return {
          ...(context ? { correlationId: context.correlationId } : {}),
          ...(span ? { traceId: span.traceId } : {}),
        };
      },
    },
    destination,
  );
}
