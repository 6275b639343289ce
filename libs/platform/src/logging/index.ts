export * from './logger.module';
export * from './redact';
