import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { DiscardPolicy, RetentionPolicy, StorageType, type StreamConfig } from '@nats-io/jetstream';
import { nanos } from '@nats-io/transport-node';
import { DEAD_LETTER_SUBJECT_PREFIX, eventSubjectsOf, STREAMS, type StreamKey } from '@homing/contracts';
import type { BaseConfig } from '../config';
import { NatsClient } from './nats.connection';

export const JETSTREAM_SETTINGS = Symbol('JETSTREAM_SETTINGS');

/** Stream settings that differ between one server and a production cluster (configuration, ARCHITECTURE §10). */
export interface JetStreamSettings {
  /** 1 on one server, 3 in a cluster. */
  replicas: number;
  /** How long the events stream keeps events. */
  eventsMaxAgeMs: number;
  /** De-duplication by message id: absorbs a relay that crashed after the publish ack and republished. */
  duplicateWindowMs: number;
}

// RELIABILITY.md: 10 minutes of de-duplication, events kept 7 days.
export const DEFAULT_JETSTREAM_SETTINGS: JetStreamSettings = { replicas: 1, eventsMaxAgeMs: 7 * 24 * 60 * 60 * 1000, duplicateWindowMs: 10 * 60 * 1000 };

/** The stream settings a service's configuration names. */
export function jetStreamSettingsOf(config: Pick<BaseConfig, 'JETSTREAM_REPLICAS' | 'JETSTREAM_EVENTS_MAX_AGE_HOURS' | 'JETSTREAM_DUPLICATE_WINDOW_SECONDS'>): JetStreamSettings {
  return {
    replicas: config.JETSTREAM_REPLICAS,
    eventsMaxAgeMs: config.JETSTREAM_EVENTS_MAX_AGE_HOURS * 60 * 60 * 1000,
    duplicateWindowMs: config.JETSTREAM_DUPLICATE_WINDOW_SECONDS * 1000,
  };
}

/** A declared stream differs from its configuration in a way that cannot be changed in place. */
export class StreamDriftError extends Error {
  constructor(stream: string, differences: string[]) {
    super(`stream ${stream} differs from its configuration and cannot be updated in place: ${differences.join('; ')}`);
    this.name = 'StreamDriftError';
  }
}

type DesiredStream = Pick<StreamConfig, 'name' | 'subjects' | 'retention' | 'storage' | 'discard' | 'max_age' | 'duplicate_window' | 'num_replicas'>;

/**
 * Declares the streams at start-up (idempotent). Every service that produces or consumes events calls it, so
 * start-up order does not matter. An existing stream is reconciled with the configuration: retention, duplicate
 * window and replicas are updated in place; a difference that cannot be (storage, retention policy) fails with a
 * StreamDriftError naming it, which keeps the service unready, rather than being silently kept. Subjects are only
 * ever added: an older replica during a rolling deploy must not remove a newer event's subject.
 */
@Injectable()
export class JetStreamStreams {
  private readonly logger = new Logger(JetStreamStreams.name);
  private ensured?: Promise<void>;
  private readonly settings: JetStreamSettings;

  constructor(
    private readonly nats: NatsClient,
    @Optional() @Inject(JETSTREAM_SETTINGS) settings?: JetStreamSettings,
  ) {
    this.settings = settings ?? DEFAULT_JETSTREAM_SETTINGS;
  }

  ensure(): Promise<void> {
    this.ensured ??= this.declareAll().catch((error: unknown) => {
      this.ensured = undefined;
      if (error instanceof StreamDriftError) this.logger.error(error.message);
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

  /** Every stream at once (they are independent: one round trip of waiting, not one a stream); the first failure is thrown once all have answered. */
  private async declareAll(): Promise<void> {
    const declared = await Promise.allSettled(
      (Object.keys(STREAMS) as StreamKey[]).map((key) => {
        const subjects =
          key === 'deadLetters'
            ? [this.nats.namespace.subject(`${DEAD_LETTER_SUBJECT_PREFIX}.>`)]
            : eventSubjectsOf(key).map((subject) => this.nats.namespace.subject(subject));
        return subjects.length === 0 ? undefined : this.declare(this.desired(key, subjects));
      }),
    );
    const failed = declared.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
    if (failed) throw failed.reason;
  }

  /** The configuration a stream should have. */
  desired(key: StreamKey, subjects: string[]): DesiredStream {
    const maxAgeMs = key === 'events' ? this.settings.eventsMaxAgeMs : STREAMS[key].maxAgeMs;
    return {
      name: this.streamName(key),
      subjects,
      retention: RetentionPolicy.Limits,
      storage: StorageType.File,
      discard: DiscardPolicy.Old,
      max_age: nanos(maxAgeMs),
      duplicate_window: nanos(Math.min(this.settings.duplicateWindowMs, maxAgeMs)),
      num_replicas: this.settings.replicas,
    };
  }

  private async declare(desired: DesiredStream): Promise<void> {
    const jsm = await this.nats.jsm();
    const existing = await jsm.streams.info(desired.name).catch(() => null);
    if (!existing) {
      await jsm.streams.add(desired);
      this.logger.log(`stream ${desired.name} created`);
      return;
    }
    const current = existing.config;
    const fixed = (['retention', 'storage'] as const).filter((field) => current[field] !== desired[field]);
    if (fixed.length > 0) throw new StreamDriftError(desired.name, fixed.map((field) => `${field} is ${current[field]}, configured ${desired[field]}`));
    const changed = (['discard', 'max_age', 'duplicate_window', 'num_replicas'] as const).filter((field) => current[field] !== desired[field]);
    const missing = desired.subjects.filter((subject) => !current.subjects?.includes(subject));
    if (changed.length === 0 && missing.length === 0) return;
    const update = { ...current, ...Object.fromEntries(changed.map((field) => [field, desired[field]])), subjects: [...(current.subjects ?? []), ...missing] };
    await jsm.streams.update(desired.name, update);
    const what = [...changed.map((field) => `${field} ${current[field]} → ${desired[field]}`), ...(missing.length ? [`added subjects ${missing.join(', ')}`] : [])];
    this.logger.log(`stream ${desired.name} updated: ${what.join('; ')}`);
  }
}
