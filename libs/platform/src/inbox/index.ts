export * from './event-consumer';
export * from './event-consumer.runner';
export * from './apply-if-newer';
export * from './event-processor';
export * from './dead-letters';
export * from './event-consumer-providers';
export * from './erasure-second-pass';
