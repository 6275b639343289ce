import { LogController, type FastifyReply, type FastifyRequest, type FastifyServerOptions } from 'fastify';
import type { Level, Logger } from 'pino';
import { maskCodes } from './redact';

// Probes and scrapes every few seconds: never worth a line at info, whatever they answer.
const QUIET_PATHS = /^\/(health\/|metrics(\?|$))/;
export const SLOW_REQUEST_MS = 1000;

/** The level of a request's one log line: problems and slow answers stand out, everything else is debug. */
export function requestLogLevel(url: string, statusCode: number, elapsedMs: number, failed: boolean): Level {
  if (QUIET_PATHS.test(url)) return 'debug';
  if (failed || statusCode >= 500) return 'error';
  if (statusCode >= 400 || elapsedMs > SLOW_REQUEST_MS) return 'warn';
  return 'debug';
}

/**
 * Fastify's request logging, one line per request when it completes. Replaces pino-http's middleware: no per-request
 * child logger, and nothing serialised unless the line's level is enabled.
 */
export class RequestLogController extends LogController {
  constructor(private readonly logger: Logger) {
    super();
  }

  override incomingRequest(): void {
    // The completion line says all of it.
  }

  override routeNotFound(): void {
    // Answered as a 404 and logged by requestCompleted.
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    const level = requestLogLevel(request.url, reply.statusCode, reply.elapsedTime, Boolean(error));
    if (!this.logger.isLevelEnabled(level)) return;
    this.logger[level](
      {
        correlationId: request.id,
        req: { method: request.method, url: maskCodes(request.url) },
        res: { statusCode: reply.statusCode },
        responseTime: Math.round(reply.elapsedTime),
        ...(error ? { err: error } : {}),
      },
      reply.elapsedTime > SLOW_REQUEST_MS ? 'slow request' : 'request completed',
    );
  }
}

/** Fastify's logging settings for a service: its requests logged by RequestLogController through the service's logger. */
export function fastifyLogging(logger: Logger): Pick<FastifyServerOptions, 'loggerInstance' | 'logController' | 'childLoggerFactory'> {
  return {
    // Fastify's own lines (listening addresses) not at info, so a start shows one line there: "listening on".
    loggerInstance: logger.child({}, { level: logger.level === 'info' ? 'warn' : logger.level }),
    logController: new RequestLogController(logger),
    // No child logger per request: the correlation id comes from the request context (the logger's mixin).
    childLoggerFactory: (parent) => parent,
  };
}
