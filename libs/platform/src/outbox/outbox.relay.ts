import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { headers as natsHeaders } from '@nats-io/transport-node';
import { Client } from 'pg';
import { isEventSubject, streamOfEvent } from '@homing/contracts';
import { CORRELATION_HEADER } from '../context';
import { Database } from '../database/database';
import { outboxMetrics, readOldestPendingWith } from '../metrics/metrics';
import { JetStreamPublisher } from '../nats/jetstream-publisher';
import { JetStreamStreams } from '../nats/jetstream-streams';
import { NatsClient } from '../nats/nats.connection';
import { OUTBOX_OPTIONS, type OutboxOptions, outboxChannel } from './outbox.options';

const BATCH_SIZE = 100;
const encoder = new TextEncoder();
// Every commit's NOTIFY wakes the relays of every replica at once; the poll only finds rows whose notification was
// missed (a listener silently cut off and not yet replaced). Each poll is a transaction, so an idle service polling
// every second cost a visible share of the stack's idle CPU (B8).
const POLL_INTERVAL_MS = 5000;
const MAX_BACKOFF_MS = 5000;
// Published rows are kept a day for inspection, then purged; JetStream de-duplicates by id within 10 minutes.
const KEEP_PUBLISHED = '24 hours';
const PURGE_EVERY_MS = 10 * 60 * 1000;

interface OutboxRow {
  id: string;
  subject: string;
  envelope: unknown;
  headers: Record<string, string>;
}

/**
 * Publishes the outbox to JetStream: rows are locked with `FOR UPDATE SKIP LOCKED` (replicas share the work
 * without publishing a row twice at once), published with `msgID = event id` (a crash after the ack and before
 * the mark republishes, and JetStream drops the duplicate), then marked published, or deleted for events of the
 * short-lived secrets stream. Wakes on the producer's NOTIFY, and polls in case one was missed.
 */
@Injectable()
export class OutboxRelay implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(OutboxRelay.name);
  private running = false;
  private loop?: Promise<void>;
  private wake?: () => void;
  // Set by every NOTIFY and cleared as a batch starts: a notification that arrives while a batch is published (no
  // sleeper to wake yet) must still keep the relay from sleeping past its row.
  private notified = false;
  private listener?: Client;
  private lastPurge = 0;
  private readonly publisher = new JetStreamPublisher();

  constructor(
    @Inject(OUTBOX_OPTIONS) private readonly options: OutboxOptions,
    private readonly database: Database,
    private readonly nats: NatsClient,
    private readonly streams: JetStreamStreams,
  ) {}

  onApplicationBootstrap(): void {
    // A hybrid app (HTTP + RPC) runs bootstrap hooks once per server: start once.
    if (this.running) return;
    this.running = true;
    readOldestPendingWith(() => this.oldestPendingAge());
    this.loop = this.run();
  }

  async onModuleDestroy(): Promise<void> {
    this.running = false;
    readOldestPendingWith(undefined);
    this.wake?.();
    await this.loop;
    await this.listener?.end().catch(() => undefined);
  }

  /**
   * Publishes one batch; returns how many rows it published. Exposed for tests and the F3 fault test. The transaction
   * takes two round trips, not four (BEGIN with the locking read; the marks with COMMIT): at B3's rate every event is
   * a batch of its own, so they were most of the relay's statements.
   */
  async relayBatch(): Promise<number> {
    // A failure closes the connection rather than reusing it (withConnection), which also ends its transaction.
    return this.database.withConnection(async (connection) => {
      const [, rows] = await connection.statements<OutboxRow>([
        'BEGIN',
        `SELECT id, subject, envelope, headers FROM outbox
          WHERE published_at IS NULL ORDER BY created_at, id LIMIT ${BATCH_SIZE} FOR UPDATE SKIP LOCKED`,
      ]);
      if (rows.length === 0) {
        await connection.statements(['COMMIT']);
        return 0;
      }
      const nc = this.nats.nc;
      // Arrival order is not a promise: rows are ordered by their transaction's start, replicas split batches and
      // naks reorder redeliveries. Consumers order an aggregate's events by its version (EventEnvelope.version).
      // The batch goes out at once and its acknowledgements are awaited together (B3, B5): one round trip a batch,
      // not one a row. If any is not acknowledged the transaction rolls back and the whole batch is sent again
      // later; the ones JetStream did store are dropped then as duplicates of their msgID.
      await Promise.all(
        rows.map(async (row) => {
          const headers = natsHeaders();
          for (const [key, value] of Object.entries(row.headers ?? {})) headers.set(key, value);
          const correlationId = (row.envelope as { correlationId?: string }).correlationId;
          if (correlationId) headers.set(CORRELATION_HEADER, correlationId);
          await this.publisher.publish(nc, this.nats.namespace.subject(row.subject), encoder.encode(JSON.stringify(row.envelope)), { msgID: row.id, headers });
          outboxMetrics.published.inc({ subject: row.subject });
        }),
      );
      const secret = rows.filter((row) => isEventSubject(row.subject) && streamOfEvent(row.subject) === 'secrets').map((row) => row.id);
      const kept = rows.filter((row) => !secret.includes(row.id)).map((row) => row.id);
      await connection.statements([
        // Secrets (login codes, reset links) must not outlive their publication (ARCHITECTURE §3).
        ...(secret.length > 0 ? [`DELETE FROM outbox WHERE id = ANY(${uuidArray(secret)})`] : []),
        ...(kept.length > 0 ? [`UPDATE outbox SET published_at = now() WHERE id = ANY(${uuidArray(kept)})`] : []),
        'COMMIT',
      ]);
      return rows.length;
    });
  }

  private async run(): Promise<void> {
    let failures = 0;
    while (this.running) {
      try {
        await this.ensureReady();
        // From here on, a commit's NOTIFY either finds its row in this batch or sends the relay round again.
        this.notified = false;
        const published = await this.relayBatch();
        failures = 0;
        await this.purgeOccasionally();
        if (published === BATCH_SIZE) continue;
        if (!this.notified) await this.sleep(POLL_INTERVAL_MS);
      } catch (error) {
        failures += 1;
        outboxMetrics.failures.inc();
        if (failures === 1 || failures % 30 === 0) this.logger.warn(`outbox relay: ${(error as Error).message}; retrying`);
        await this.sleep(Math.min(MAX_BACKOFF_MS, 200 * 2 ** Math.min(failures, 5)));
      }
    }
  }

  private async ensureReady(): Promise<void> {
    await this.nats.connect();
    if (!this.nats.isConnected()) throw new Error('NATS is not connected');
    await this.streams.ensure();
    if (!this.listener) await this.listen();
  }

  private async listen(): Promise<void> {
    const listener = new Client({ connectionString: this.options.databaseUrl, connectionTimeoutMillis: 3000 });
    listener.on('notification', () => {
      this.notified = true;
      this.wake?.();
    });
    listener.on('error', (error) => {
      // Commits from now on notify no one: wake the relay, whose next round listens again and relays what they wrote,
      // rather than leaving their events for the poll up to 5 s later.
      this.logger.warn(`outbox listener lost: ${error.message}`);
      if (this.listener === listener) this.listener = undefined;
      void listener.end().catch(() => undefined);
      this.wake?.();
    });
    await listener.connect();
    await listener.query(`LISTEN ${outboxChannel(this.options.schema)}`);
    this.listener = listener;
  }

  private async purgeOccasionally(): Promise<void> {
    if (Date.now() - this.lastPurge < PURGE_EVERY_MS) return;
    this.lastPurge = Date.now();
    await this.database.affected(`DELETE FROM outbox WHERE published_at < now() - interval '${KEEP_PUBLISHED}'`);
  }

  /**
   * Seconds since the oldest unpublished row was written (0 when none): read when metrics are scraped, not after every
   * batch, where it was one statement in five of a relayed message (B3).
   */
  private async oldestPendingAge(): Promise<number> {
    const row = await this.database.one<{ age: number | null }>(
      'SELECT EXTRACT(EPOCH FROM now() - min(created_at))::float AS age FROM outbox WHERE published_at IS NULL',
    );
    return Number(row?.age ?? 0);
  }

  private sleep(ms: number): Promise<void> {
    if (!this.running) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        if (this.wake === done) this.wake = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wake = done;
    });
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** An SQL literal of outbox ids, which the outbox's uuid column gave: checked anyway, since it is spliced into SQL. */
function uuidArray(ids: readonly string[]): string {
  for (const id of ids) if (!UUID.test(id)) throw new Error(`not an outbox id: ${JSON.stringify(id).slice(0, 60)}`);
  return `ARRAY[${ids.map((id) => `'${id}'`).join(',')}]::uuid[]`;
}
