import type { Provider, Type } from '@nestjs/common';
import { EVENT_CONSUMERS, type EventConsumer } from './event-consumer';
import { EventConsumerRunner } from './event-consumer.runner';

/**
 * Providers that run the given durable JetStream consumers; put them in the module that owns the consumers.
 * The consumers get their own dependencies injected like any provider.
 */
export function eventConsumerProviders(...consumers: Array<Type<EventConsumer>>): Provider[] {
  return [
    ...consumers,
    { provide: EVENT_CONSUMERS, useFactory: (...instances: EventConsumer[]) => instances, inject: consumers },
    EventConsumerRunner,
  ];
}
