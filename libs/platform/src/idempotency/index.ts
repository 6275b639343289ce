export * from './idempotency-keys';
