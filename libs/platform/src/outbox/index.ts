export * from './outbox.options';
export * from './outbox.relay';
export * from './outbox.writer';
