import type { IncomingMessage } from 'node:http';
import { LoggerModule } from 'nestjs-pino';
import { type DynamicModule, RequestMethod } from '@nestjs/common';
import { trace } from '@opentelemetry/api';
import { requestContext } from '../context';
import { maskCodes, REDACTED_PATHS } from './redact';

export interface LoggingOptions {
  service: string;
  level: string;
  pretty: boolean;
}

const QUIET_PATHS = /^\/(health\/|metrics)/;

/** Structured JSON logs (pino) with the correlation id and trace id on every line. */
export function loggingModule(options: LoggingOptions): DynamicModule {
  return LoggerModule.forRoot({
    // Every route, in path-to-regexp 8 syntax (a bare `*` makes Nest warn about a legacy route).
    forRoutes: [{ path: '{*path}', method: RequestMethod.ALL }],
    pinoHttp: {
      level: options.level,
      base: { service: options.service },
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      // No genReqId: the request id Fastify assigns is already the correlation id (runService).
      transport: options.pretty ? { target: 'pino-pretty', options: { singleLine: true, translateTime: 'HH:MM:ss.l' } } : undefined,
      mixin() {
        const context = requestContext.current();
        const span = trace.getActiveSpan()?.spanContext();
        return {
          ...(context ? { correlationId: context.correlationId } : {}),
          ...(span ? { traceId: span.traceId } : {}),
        };
      },
      // Middleware sees a mount-relative url; originalUrl is the path as requested.
      autoLogging: { ignore: (req: IncomingMessage & { originalUrl?: string }) => QUIET_PATHS.test(req.originalUrl ?? req.url ?? '') },
      customLogLevel(_req, res, error) {
        if (error || res.statusCode >= 500) return 'error';
        return res.statusCode >= 400 ? 'warn' : 'info';
      },
      serializers: {
        req: (req: { id: string; method: string; url: string }) => ({ id: req.id, method: req.method, url: maskCodes(req.url) }),
        res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
      },
    },
  });
}
