import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { headers as natsHeaders } from '@nats-io/transport-node';
import { Client } from 'pg';
import { isEventSubject, streamOfEvent } from '@homing/contracts';
import { CORRELATION_HEADER } from '../context';
import { Database, type RawConnection } from '../database/database';
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
// Set-aside rows are kept as long as a consumer's dead letters (ARCHITECTURE §3), for an operator to republish.
const KEEP_SET_ASIDE = '30 days';
const PURGE_EVERY_MS = 10 * 60 * 1000;
/**
 * A row JetStream refuses while it takes others of the same batch is refused for what it is, not for an outage: it is
 * set aside once refused this often over at least this long, so that a long partial outage (one stream's servers
 * away) needs an operator only after an hour. Until then it is offered again with every batch, behind no one.
 */
export const SET_ASIDE_AFTER_REFUSALS = 10;
export const SET_ASIDE_AFTER = '1 hour';

interface OutboxRow {
  id: string;
  subject: string;
  envelope: unknown;
  headers: Record<string, string>;
}

/** A row JetStream refused, after its refusal is recorded. */
interface RefusedRow {
  id: string;
  subject: string;
  refusals: number;
  set_aside: boolean;
}

/**
 * Publishes the outbox to JetStream: rows are locked with `FOR UPDATE SKIP LOCKED` (replicas share the work
 * without publishing a row twice at once), published with `msgID = event id` (a crash after the ack and before
 * the mark republishes, and JetStream drops the duplicate), then marked published, or deleted for events of the
 * short-lived secrets stream. Wakes on the producer's NOTIFY, and polls in case one was missed.
 *
 * A row JetStream refuses while it takes the others of its batch does not hold them back: they are marked, and its
 * refusal is recorded; one refused for over an hour is set aside (`republish-set-aside-events` offers it again).
 * A batch of which nothing is taken is an outage: it is rolled back and tried again, nothing counted against a row.
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
    return (await this.relayOnce()).published;
  }

  /** One batch, as the loop runs it: how many rows it read (a full batch may have more behind it), how many it published. */
  relayOnce(): Promise<{ read: number; published: number }> {
    // A failure closes the connection rather than reusing it (withConnection), which also ends its transaction.
    return this.database.withConnection(async (connection) => {
      const [, rows] = await connection.statements<OutboxRow>([
        'BEGIN',
        `SELECT id, subject, envelope, headers FROM outbox
          WHERE published_at IS NULL AND set_aside_at IS NULL ORDER BY created_at, id LIMIT ${BATCH_SIZE} FOR UPDATE SKIP LOCKED`,
      ]);
      if (rows.length === 0) {
        await connection.statements(['COMMIT']);
        return { read: 0, published: 0 };
      }
      const nc = this.nats.nc;
      // Arrival order is not a promise: rows are ordered by their transaction's start, replicas split batches and
      // naks reorder redeliveries. Consumers order an aggregate's events by its version (EventEnvelope.version).
      // The batch goes out at once and its acknowledgements are awaited together (B3, B5): one round trip a batch,
      // not one a row. If any is not acknowledged the transaction rolls back and the whole batch is sent again
      // later; the ones JetStream did store are dropped then as duplicates of their msgID.
      const outcomes = await Promise.allSettled(
        rows.map(async (row) => {
          const headers = natsHeaders();
          for (const [key, value] of Object.entries(row.headers ?? {})) headers.set(key, value);
          const correlationId = (row.envelope as { correlationId?: string }).correlationId;
          if (correlationId) headers.set(CORRELATION_HEADER, correlationId);
          await this.publisher.publish(nc, this.nats.namespace.subject(row.subject), encoder.encode(JSON.stringify(row.envelope)), { msgID: row.id, headers });
          outboxMetrics.published.inc({ subject: row.subject });
        }),
      );
      const published = rows.filter((_, index) => outcomes[index].status === 'fulfilled');
      // Nothing taken: NATS or JetStream is away, which says nothing about any row. The failure rolls the batch back
      // (withConnection closes the connection) and the loop tries again after its backoff.
      if (published.length === 0) throw (outcomes[0] as PromiseRejectedResult).reason;
      const secret = published.filter((row) => isSecret(row.subject)).map((row) => row.id);
      const kept = published.filter((row) => !isSecret(row.subject)).map((row) => row.id);
      const marks = [
        // Secrets (login codes, reset links) must not outlive their publication (ARCHITECTURE §3).
        ...(secret.length > 0 ? [`DELETE FROM outbox WHERE id = ANY(${uuidArray(secret)})`] : []),
        ...(kept.length > 0 ? [`UPDATE outbox SET published_at = now() WHERE id = ANY(${uuidArray(kept)})`] : []),
      ];
      const refused = rows.flatMap((row, index) => {
        const outcome = outcomes[index];
        return outcome.status === 'rejected' ? [{ row, reason: outcome.reason instanceof Error ? outcome.reason.message : String(outcome.reason) }] : [];
      });
      if (refused.length === 0) {
        await connection.statements([...marks, 'COMMIT']);
      } else {
        await connection.statements(marks);
        await this.recordRefusals(connection, refused);
        await connection.statements(['COMMIT']);
      }
      return { read: rows.length, published: published.length };
    });
  }

  /**
   * Counts a refusal against each row, sets aside those refused long enough (a secret is deleted instead: a login code
   * or reset link must not wait in the outbox for an operator; the person asks again), in the batch's transaction.
   * Refusals are rare, so one parameterised statement a row is no cost worth saving.
   */
  private async recordRefusals(connection: RawConnection, refused: ReadonlyArray<{ row: OutboxRow; reason: string }>): Promise<void> {
    for (const { row, reason } of refused) {
      const [recorded] = await connection.rows<RefusedRow>(RECORD_REFUSAL, [row.id, reason.slice(0, 500), SET_ASIDE_AFTER_REFUSALS, SET_ASIDE_AFTER]);
      outboxMetrics.refusals.inc({ subject: row.subject });
      if (!recorded) continue;
      if (recorded.refusals === 1) this.logger.warn(`outbox: JetStream refused event ${row.id} (${row.subject}) while taking others: ${reason}`);
      if (!recorded.set_aside) continue;
      outboxMetrics.setAside.inc({ subject: row.subject });
      if (isSecret(row.subject)) {
        await connection.rows('DELETE FROM outbox WHERE id = $1', [row.id]);
        this.logger.error(`outbox: secret event ${row.id} (${row.subject}) refused ${recorded.refusals} times over ${SET_ASIDE_AFTER}; deleted: ${reason}`);
      } else {
        this.logger.error(`outbox: event ${row.id} (${row.subject}) refused ${recorded.refusals} times over ${SET_ASIDE_AFTER}; set aside: ${reason}`);
      }
    }
  }

  private async run(): Promise<void> {
    let failures = 0;
    while (this.running) {
      try {
        await this.ensureReady();
        // From here on, a commit's NOTIFY either finds its row in this batch or sends the relay round again.
        this.notified = false;
        const { read } = await this.relayOnce();
        failures = 0;
        await this.purgeOccasionally();
        // A full batch may have more behind it (rows it refused included).
        if (read === BATCH_SIZE) continue;
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
    await this.database.affected(`DELETE FROM outbox WHERE set_aside_at < now() - interval '${KEEP_SET_ASIDE}'`);
  }

  /**
   * Seconds since the oldest unpublished row was written (0 when none): read when metrics are scraped, not after every
   * batch, where it was one statement in five of a relayed message (B3).
   */
  private async oldestPendingAge(): Promise<number> {
    const row = await this.database.one<{ age: number | null }>(
      'SELECT EXTRACT(EPOCH FROM now() - min(created_at))::float AS age FROM outbox WHERE published_at IS NULL AND set_aside_at IS NULL',
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

// One refusal more; set aside ($3 refusals over at least $4) unless it was before. Answers what the row is now.
const RECORD_REFUSAL = `UPDATE outbox SET
    refusals = refusals + 1,
    first_refused_at = coalesce(first_refused_at, now()),
    last_refusal = $2,
    set_aside_at = CASE WHEN refusals + 1 >= $3 AND coalesce(first_refused_at, now()) <= now() - $4::interval THEN now() END
  WHERE id = $1
  RETURNING id, subject, refusals, set_aside_at IS NOT NULL AS set_aside`;

/**
 * Offers every set-aside row to the relays again (after a fix: a stream that takes its subject, a larger size limit),
 * with its refusals counted afresh, and wakes them. Answers how many. The `republish-set-aside-events` command.
 */
export async function republishSetAside(database: Database, schema: string): Promise<number> {
  const rows = await database.rows<{ id: string }>(
    'UPDATE outbox SET set_aside_at = NULL, refusals = 0, first_refused_at = NULL WHERE set_aside_at IS NOT NULL RETURNING id',
  );
  if (rows.length > 0) await database.rows('SELECT pg_notify($1, $2)', [outboxChannel(schema), 'republish']);
  return rows.length;
}

function isSecret(subject: string): boolean {
  return isEventSubject(subject) && streamOfEvent(subject) === 'secrets';
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** An SQL literal of outbox ids, which the outbox's uuid column gave: checked anyway, since it is spliced into SQL. */
function uuidArray(ids: readonly string[]): string {
  for (const id of ids) if (!UUID.test(id)) throw new Error(`not an outbox id: ${JSON.stringify(id).slice(0, 60)}`);
  return `ARRAY[${ids.map((id) => `'${id}'`).join(',')}]::uuid[]`;
}
