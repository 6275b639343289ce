export * from './logger';
export * from './logger.module';
export * from './nest-logger';
export * from './redact';
export * from './request-log.controller';
