import { Injectable, Logger } from '@nestjs/common';
import { DiscardPolicy, RetentionPolicy, StorageType, type StreamConfig } from '@nats-io/jetstream';
import { nanos } from '@nats-io/transport-node';
import { DEAD_LETTER_SUBJECT_PREFIX, eventSubjectsOf, STREAMS, type StreamKey } from '@homing/contracts';
import { NatsClient } from './nats.connection';

// RELIABILITY.md: a producer that crashed after the publish ack republishes within minutes; 10 minutes of
// de-duplication by message id absorbs it.
const DUPLICATE_WINDOW_MS = 10 * 60 * 1000;

/**
 * Declares the streams at start-up (idempotent). Every service that produces or consumes events calls it, so
 * start-up order does not matter. Subjects are only ever added: an older replica during a rolling deploy
 * must not remove a newer event's subject.
 */
@Injectable()
export class JetStreamStreams {
  private readonly logger = new Logger(JetStreamStreams.name);
  private ensured?: Promise<void>;

  constructor(private readonly nats: NatsClient) {}

  ensure(): Promise<void> {
    this.ensured ??= this.declareAll().catch((error: unknown) => {
      this.ensured = undefined;
      throw error;
    });
    return this.ensured;
  }

  streamName(stream: StreamKey): string {
    return this.nats.namespace.stream(STREAMS[stream].name);
  }

  deadLetterSubject(consumer: string): string {
    return this.nats.namespace.subject(`${DEAD_LETTER_SUBJECT_PREFIX}.${consumer}`);
  }

  private async declareAll(): Promise<void> {
    for (const key of Object.keys(STREAMS) as StreamKey[]) {
      const subjects =
        key === 'deadLetters'
          ? [this.nats.namespace.subject(`${DEAD_LETTER_SUBJECT_PREFIX}.>`)]
          : eventSubjectsOf(key).map((subject) => this.nats.namespace.subject(subject));
      if (subjects.length === 0) continue;
      await this.declare(key, subjects);
    }
  }

  private async declare(key: StreamKey, subjects: string[]): Promise<void> {
    const jsm = await this.nats.jsm();
    const name = this.streamName(key);
    const maxAgeMs = STREAMS[key].maxAgeMs;
    const existing = await jsm.streams.info(name).catch(() => null);
    if (!existing) {
      const config: Partial<StreamConfig> & { name: string } = {
        name,
        subjects,
        retention: RetentionPolicy.Limits,
        storage: StorageType.File,
        discard: DiscardPolicy.Old,
        max_age: nanos(maxAgeMs),
        duplicate_window: nanos(Math.min(DUPLICATE_WINDOW_MS, maxAgeMs)),
        num_replicas: 1,
      };
      await jsm.streams.add(config);
      this.logger.log(`stream ${name} created`);
      return;
    }
    const missing = subjects.filter((subject) => !existing.config.subjects?.includes(subject));
    if (missing.length > 0) {
      await jsm.streams.update(name, { ...existing.config, subjects: [...(existing.config.subjects ?? []), ...missing] });
      this.logger.log(`stream ${name}: added subjects ${missing.join(', ')}`);
    }
  }
}
