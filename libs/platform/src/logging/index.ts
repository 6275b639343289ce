export * from './logger';
export * from './nest-logger';
export * from './redact';
export * from './request-log.controller';
