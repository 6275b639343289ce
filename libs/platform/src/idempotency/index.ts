export * from './idempotency-keys';
export * from './sealed-answers';
