import { type DynamicModule, Module } from '@nestjs/common';
import type { Logger } from 'pino';
import { serviceLoggerFor, type LoggingOptions } from './logger';

/** Injection token of the service's pino logger, for code that logs structured fields. */
export const LOGGER = Symbol('LOGGER');

@Module({})
class LoggingModule {}

/** Makes the service's one pino logger injectable as LOGGER (runService gives the same one to Fastify and Nest). */
export function loggingModule(options: LoggingOptions): DynamicModule {
  const provider = { provide: LOGGER, useFactory: (): Logger => serviceLoggerFor(options) };
  return { module: LoggingModule, global: true, providers: [provider], exports: [provider] };
}
