export * from './event-consumer';
export * from './event-consumer.runner';
