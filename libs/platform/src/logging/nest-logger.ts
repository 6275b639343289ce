import type { LoggerService } from '@nestjs/common';
import type { Logger } from 'pino';

// Nest's start-up chatter ("module dependencies initialized", "Mapped {/x, GET} route"): debug, so a service's
// start shows one line at info and a warning stands out.
const BOOTSTRAP_CONTEXTS = new Set(['InstanceLoader', 'RoutesResolver', 'RouterExplorer', 'NestFactory', 'NestApplication', 'NestMicroservice']);

type Level = 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal';

/** Nest's logger interface over the service's pino logger: `log(message, context)` becomes `{context, msg}`. */
export class NestPinoLogger implements LoggerService {
  constructor(private readonly logger: Logger) {}

  log(message: unknown, ...params: unknown[]): void {
    this.write(BOOTSTRAP_CONTEXTS.has(String(params.at(-1))) ? 'debug' : 'info', message, params);
  }

  error(message: unknown, ...params: unknown[]): void {
    // Nest passes a text as (message, stack, context); the stack is worth keeping.
    if (typeof message === 'string' && params.length >= 2 && typeof params[0] === 'string') {
      this.write('error', message, params.slice(1), { stack: params[0] });
    } else this.write('error', message, params);
  }

  warn(message: unknown, ...params: unknown[]): void {
    this.write('warn', message, params);
  }

  debug(message: unknown, ...params: unknown[]): void {
    this.write('debug', message, params);
  }

  verbose(message: unknown, ...params: unknown[]): void {
    this.write('trace', message, params);
  }

  fatal(message: unknown, ...params: unknown[]): void {
    this.write('fatal', message, params);
  }

  private write(level: Level, message: unknown, params: unknown[], extra: object = {}): void {
    if (!this.logger.isLevelEnabled(level)) return;
    // The last parameter is the context Nest's Logger adds; an object message may be followed by a text.
    const context = typeof params.at(-1) === 'string' ? (params.at(-1) as string) : undefined;
    const fields = { ...(context ? { context } : {}), ...extra };
    if (message instanceof Error) this.logger[level]({ ...fields, err: message }, message.message);
    else if (typeof message === 'object' && message !== null) {
      const text = params.length > 1 && typeof params[0] === 'string' ? params[0] : undefined;
      this.logger[level]({ ...fields, ...message }, text);
    } else this.logger[level](fields, String(message));
  }
}
