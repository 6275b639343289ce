import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { headers as natsHeaders, type NatsConnection } from '@nats-io/transport-node';
import { Client } from 'pg';
import { isEventSubject, streamOfEvent } from '@homing/contracts';
import { CORRELATION_HEADER, requestContext } from '../context';
import { Database, prepared, type RawConnection } from '../database/database';
import { outboxMetrics, readOldestPendingWith } from '../metrics/metrics';
import { isRefusalOfTheMessage, JetStreamPublisher } from '../nats/jetstream-publisher';
import { JetStreamStreams } from '../nats/jetstream-streams';
import { NatsClient } from '../nats/nats.connection';
import { OUTBOX_OPTIONS, type OutboxOptions, outboxChannel, outboxListenerName } from './outbox.options';

const BATCH_SIZE = 100;
const encoder = new TextEncoder();
// A service's own commits are published as they commit (dispatch); a command's commits NOTIFY, which wakes the relays
// of every replica at once. The poll finds what neither reached: the rows of a process that died before its dispatch,
// and notifications missed (a listener silently cut off and not yet replaced). A poll that finds nothing costs a
// statement (`run`), but every second it would still be a visible share of an idle stack's CPU (B8).
const POLL_INTERVAL_MS = 5000;
const MAX_BACKOFF_MS = 5000;
// Published rows are kept a day for inspection, then purged; JetStream de-duplicates by id within 10 minutes.
const KEEP_PUBLISHED = '24 hours';
// Set-aside rows are kept as long as a consumer's dead letters (ARCHITECTURE §3), for an operator to republish.
const KEEP_SET_ASIDE = '30 days';
const PURGE_EVERY_MS = 10 * 60 * 1000;
/**
 * A row JetStream refuses while it answers (no stream stores its subject, the stream refuses it, it is over the size
 * limit) is refused for what it is: it is set aside once refused this often over at least this long, so that a long
 * partial outage (one stream's servers away) needs an operator only after an hour. Until then it is offered again
 * after a growing delay (2^refusals seconds, at most RETRY_DELAY_MAX_SECONDS), out of the way of the rows behind it.
 */
const SET_ASIDE_AFTER_REFUSALS = 10;
const SET_ASIDE_AFTER = '1 hour';
const RETRY_DELAY_MAX_SECONDS = 300;
// A row whose acknowledgement did not come (or that JetStream said it could not take now) waits this long, whatever
// its count: longer than a batch that waited for it, so that the rows behind it go ahead meanwhile.
const UNANSWERED_RETRY_SECONDS = 30;
// A batch with rows JetStream did not answer for is logged at most this often (each such batch is counted).
const UNANSWERED_LOG_EVERY_MS = 30_000;
// Events a process dispatched are marked published together, in one statement for all those dispatched within this
// long of the first (or as soon as this many wait), where each commit's events took one: a finder's message makes three
// events in two services, three marks (B3, B5). A row waiting for its mark is published again only if a relay round
// takes it meanwhile (a poll, or a wake-up for another row), and JetStream drops that as a duplicate of its msgID; so
// is one whose process died with its mark waiting, at the next poll, as before.
const MARK_AFTER_MS = 100;
const MARK_AT_MOST = 500;

interface OutboxRow {
  id: string;
  subject: string;
  envelope: unknown;
  headers: Record<string, string>;
}

/** An event its own process has just committed to the outbox, as it was recorded (OutboxWriter). */
export interface CommittedEvent {
  id: string;
  subject: string;
  correlationId: string;
  /** The envelope's JSON, as stored. */
  envelope: string;
  headers: Record<string, string>;
}

/** A row JetStream did not take, as recorded: why, whether it was refused for what it is, and its count now. */
interface RecordedFailure {
  id: string;
  subject: string;
  reason: string;
  refused: boolean;
  refusals: number;
  set_aside: boolean;
}

/**
 * Publishes the outbox to JetStream: rows are locked with `FOR UPDATE SKIP LOCKED` (replicas share the work
 * without publishing a row twice at once), published with `msgID = event id` (a crash after the ack and before
 * the mark republishes, and JetStream drops the duplicate), then marked published, or deleted for events of the
 * short-lived secrets stream. Events its own process commits it publishes at once (`dispatch`); it wakes on a NOTIFY
 * (a command's commit, a dispatch left to it), and polls for what neither reached.
 *
 * A row JetStream does not take holds no one back: the rows taken are marked, and it is offered again after a delay,
 * out of the way. A refusal while JetStream answers (a row of the batch acknowledged, or JetStream asked) is counted
 * against the row; a row refused for over an hour is set aside (`republish-set-aside-events` offers it again). A batch
 * of which nothing is taken while JetStream does not answer is an outage: rolled back and tried again, nothing counted.
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
  private lastUnansweredLog = 0;
  private readonly publisher = new JetStreamPublisher();
  // Dispatches under way, and marks, awaited at shutdown so that none uses the pool or NATS after they close.
  private readonly dispatching = new Set<Promise<void>>();
  // Dispatched events not marked yet (their ids, and when their publication began), and the timer that marks them.
  private unmarked: { ids: string[]; startedAt: number[] } = { ids: [], startedAt: [] };
  private markTimer?: NodeJS.Timeout;

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
    await Promise.all(this.dispatching);
    // The marks still waiting go now, while the pool is open.
    await this.markWaiting();
    // Forgotten first, so that its end is not taken for a lost listener.
    const listener = this.listener;
    this.listener = undefined;
    await listener?.end().catch(() => undefined);
  }

  /**
   * Whether this process's relay publishes the events its process commits as they commit (`dispatch`). Only while its
   * loop runs: a command or a test driving the relay by hand leaves them to NOTIFY and the relays' rounds.
   */
  get dispatches(): boolean {
    return this.running;
  }

  /**
   * Publishes events its own process has just committed, at once, and marks them as a round would (one statement):
   * no NOTIFY, no wake-up and no locking read of the outbox, which were half of an event's statements and the relay
   * stage of a finder's message (B3). The rows are the guarantee, as before: if the process dies first, or anything
   * fails (JetStream away or refusing, the mark), the row stays unpublished and this relay's loop takes it over at once
   * (another replica's at its next poll), with its refusal counts and set-aside. A relay's round may take a row while
   * it is being dispatched (its poll, or a wake-up for another row): both publish it with the event's id as the msgID
   * and JetStream keeps one.
   */
  dispatch(events: readonly CommittedEvent[]): void {
    if (events.length === 0) return;
    // Stopping since the writer chose not to NOTIFY (a request answered during shutdown): the service's other relays
    // are told, as the writer would have.
    if (!this.running) return this.notifyRelays();
    this.track(this.publishCommitted(events).catch((error: unknown) => this.leftToRelay(events.length, error)));
  }

  /** A dispatch or a mark that failed: its rows stay unpublished, and this relay takes them over at once. */
  private leftToRelay(count: number, error: unknown): void {
    outboxMetrics.dispatchesLeft.inc();
    this.logger.debug(`outbox: dispatch of ${count} event(s) left to the relay: ${error instanceof Error ? error.message : String(error)}`);
    if (!this.running) return this.notifyRelays();
    this.notified = true;
    this.wake?.();
  }

  private track(work: Promise<void>): void {
    this.dispatching.add(work);
    void work.finally(() => this.dispatching.delete(work));
  }

  /** A NOTIFY on the outbox's channel, for the relays of the service's other processes; best effort (they also poll). */
  private notifyRelays(): void {
    void notifyRelays(this.database, this.options.schema, 'dispatch left').catch(() => undefined);
  }

  private async publishCommitted(events: readonly CommittedEvent[]): Promise<void> {
    // `published_at` says when publication began (as a round's transaction start does), on the database's clock.
    const startedAt = performance.now();
    const nc = this.nats.nc;
    await Promise.all(events.map((event) => this.publishOne(nc, event)));
    const { secret, kept } = bySecrecy(events);
    // A secret (a login code, a reset link) leaves the outbox at once; the others are marked with those dispatched
    // within MARK_AFTER_MS.
    if (secret.length > 0) await this.database.affected(DELETE_PUBLISHED, [secret]);
    if (kept.length > 0) this.markLater(kept, startedAt);
  }

  /** Marks dispatched events published, in one statement with those dispatched within MARK_AFTER_MS of the first. */
  private markLater(ids: readonly string[], startedAt: number): void {
    for (const id of ids) {
      this.unmarked.ids.push(id);
      this.unmarked.startedAt.push(startedAt);
    }
    if (this.unmarked.ids.length >= MARK_AT_MOST) this.track(this.markWaiting());
    // Started outside the request that dispatched first, whose context the timer would otherwise keep for all of them.
    else this.markTimer ??= requestContext.outside(() => setTimeout(() => this.track(this.markWaiting()), MARK_AFTER_MS).unref());
  }

  /** The marks waiting, now; what fails to be marked is left to the relay (published again, dropped as a duplicate). */
  private async markWaiting(): Promise<void> {
    clearTimeout(this.markTimer);
    this.markTimer = undefined;
    const { ids, startedAt } = this.unmarked;
    if (ids.length === 0) return;
    this.unmarked = { ids: [], startedAt: [] };
    const now = performance.now();
    // `published_at` says when each one's publication began, on the database's clock.
    await this.database.affected(MARK_PUBLISHED, [ids, startedAt.map((at) => now - at)]).then(
      () => undefined,
      (error: unknown) => this.leftToRelay(ids.length, error),
    );
  }

  /** One event to JetStream, with the event's id as its msgID (a second publish of it is dropped as a duplicate). */
  private async publishOne(nc: NatsConnection, event: { id: string; subject: string; envelope: string; headers: Record<string, string>; correlationId?: string }): Promise<void> {
    const headers = natsHeaders();
    for (const [key, value] of Object.entries(event.headers)) headers.set(key, value);
    if (event.correlationId) headers.set(CORRELATION_HEADER, event.correlationId);
    await this.publisher.publish(nc, this.nats.namespace.subject(event.subject), encoder.encode(event.envelope), { msgID: event.id, headers });
    outboxMetrics.published.inc({ subject: event.subject });
  }

  /** Publishes one batch and answers how many rows it published: for tests, which drive the relay by hand. */
  async relayBatch(): Promise<number> {
    return (await this.relayOnce()).published;
  }

  /**
   * One batch, as the loop runs it: how many rows it read (a full batch may have more behind it), how many it
   * published. A batch whose rows are all taken is one transaction in two round trips, not four (BEGIN with the locking
   * read; the marks with COMMIT): at B3's rate, before events were dispatched as they commit, every event was a batch of
   * its own, so they were most of the relay's statements. Rows not taken cost a statement each, after a savepoint.
   */
  relayOnce(): Promise<{ read: number; published: number }> {
    // A failure closes the connection rather than reusing it (withConnection), which also ends its transaction.
    // Rows this process published and is about to mark are not published again (another process's round may).
    const waiting = this.unmarked.ids.length > 0 ? `AND id <> ALL(${uuidArray(this.unmarked.ids)})` : '';
    return this.database.withConnection(async (connection) => {
      const [, rows] = await connection.statements<OutboxRow>([
        'BEGIN',
        // Rows JetStream did not take wait for their retry_at, so that the rows behind them go ahead meanwhile.
        `SELECT id, subject, envelope, headers FROM outbox
          WHERE published_at IS NULL AND set_aside_at IS NULL AND (retry_at IS NULL OR retry_at <= now()) ${waiting}
          ORDER BY created_at, id LIMIT ${BATCH_SIZE} FOR UPDATE SKIP LOCKED`,
      ]);
      if (rows.length === 0) {
        await connection.statements(['COMMIT']);
        return { read: 0, published: 0 };
      }
      const nc = this.nats.nc;
      // Arrival order is not a promise: rows are ordered by their transaction's start, replicas split batches and
      // naks reorder redeliveries. Consumers order an aggregate's events by its version (EventEnvelope.version).
      // The batch goes out at once and its acknowledgements are awaited together (B3, B5): one round trip a batch,
      // not one a row. A row published again later (its acknowledgement was lost) is dropped by JetStream as a
      // duplicate of its msgID.
      const outcomes = await Promise.allSettled(
        rows.map((row) =>
          this.publishOne(nc, {
            id: row.id,
            subject: row.subject,
            envelope: JSON.stringify(row.envelope),
            headers: row.headers ?? {},
            correlationId: (row.envelope as { correlationId?: string }).correlationId,
          }),
        ),
      );
      const published = rows.filter((_, index) => outcomes[index].status === 'fulfilled');
      const failed = rows.flatMap((row, index) => {
        const outcome = outcomes[index];
        return outcome.status === 'rejected' ? [{ row, error: outcome.reason as unknown }] : [];
      });
      // Nothing taken, and JetStream does not answer when asked: an outage, which says nothing about any row. The
      // failure rolls the batch back and the loop tries again after its backoff.
      if (published.length === 0 && !(await this.jetStreamAnswers())) throw failed[0].error;
      const { secret, kept } = bySecrecy(published);
      const marks = [
        ...(secret.length > 0 ? [`DELETE FROM outbox WHERE id = ANY(${uuidArray(secret)})`] : []),
        ...(kept.length > 0 ? [`UPDATE outbox SET published_at = now() WHERE id = ANY(${uuidArray(kept)})`] : []),
      ];
      if (failed.length === 0) {
        await connection.statements([...marks, 'COMMIT']);
        return { read: rows.length, published: published.length };
      }
      // What was published is committed even if recording the failures fails (it would be published again).
      await connection.statements([...marks, 'SAVEPOINT failures']);
      let recorded: RecordedFailure[];
      try {
        recorded = await this.recordFailures(connection, failed);
      } catch (error) {
        await connection.statements(['ROLLBACK TO SAVEPOINT failures', 'COMMIT']);
        // The rows stay as they were; the loop's backoff keeps it from offering them again at once.
        throw new Error(`recording ${failed.length} unpublished event(s) failed: ${(error as Error).message}`, { cause: error });
      }
      await connection.statements(['COMMIT']);
      this.report(recorded);
      return { read: rows.length, published: published.length };
    });
  }

  /**
   * Defers each row JetStream did not take, and counts a refusal against those it refused for what they are
   * (isRefusalOfTheMessage); sets aside a row refused long enough (a secret is deleted instead: a login code or reset
   * link must not wait in the outbox for an operator; the person asks again). In the batch's transaction; rare, so one
   * parameterised statement a row is no cost worth saving. Nothing is logged or counted until the transaction commits.
   */
  private async recordFailures(connection: RawConnection, failed: ReadonlyArray<{ row: OutboxRow; error: unknown }>): Promise<RecordedFailure[]> {
    const recorded: RecordedFailure[] = [];
    for (const { row, error } of failed) {
      const reason = error instanceof Error ? error.message : String(error);
      const refused = isRefusalOfTheMessage(error);
      const [state] = await connection.rows<{ refusals: number; set_aside: boolean }>(RECORD_FAILURE, [
        row.id,
        reason.slice(0, 500),
        refused ? 1 : 0,
        SET_ASIDE_AFTER_REFUSALS,
        SET_ASIDE_AFTER,
        RETRY_DELAY_MAX_SECONDS,
        UNANSWERED_RETRY_SECONDS,
      ]);
      if (!state) continue;
      if (state.set_aside && isSecret(row.subject)) await connection.rows('DELETE FROM outbox WHERE id = $1', [row.id]);
      recorded.push({ id: row.id, subject: row.subject, reason, refused, ...state });
    }
    return recorded;
  }

  /** Logs and counts what recordFailures recorded, once it is committed. */
  private report(recorded: readonly RecordedFailure[]): void {
    let unanswered = 0;
    for (const failure of recorded) {
      if (!failure.refused) {
        unanswered += 1;
        continue;
      }
      outboxMetrics.refusals.inc({ subject: failure.subject });
      if (failure.refusals === 1) this.logger.warn(`outbox: JetStream refused event ${failure.id} (${failure.subject}): ${failure.reason}`);
      if (!failure.set_aside) continue;
      outboxMetrics.setAside.inc({ subject: failure.subject });
      const fate = isSecret(failure.subject) ? 'deleted' : 'set aside';
      this.logger.error(`outbox: event ${failure.id} (${failure.subject}) refused ${failure.refusals} times over ${SET_ASIDE_AFTER}; ${fate}: ${failure.reason}`);
    }
    if (unanswered > 0) {
      outboxMetrics.failures.inc();
      if (Date.now() - this.lastUnansweredLog >= UNANSWERED_LOG_EVERY_MS) {
        this.lastUnansweredLog = Date.now();
        this.logger.warn(`outbox: ${unanswered} event(s) of a batch not taken while JetStream was unavailable or slow; offered again in ${UNANSWERED_RETRY_SECONDS} s`);
      }
    }
  }

  /** Whether JetStream answers at all, asked when it took none of a batch: an outage, or rows of their own fault. */
  private async jetStreamAnswers(): Promise<boolean> {
    try {
      await (await this.nats.jsm()).getAccountInfo();
      return true;
    } catch {
      return false;
    }
  }

  private async run(): Promise<void> {
    let failures = 0;
    // Whether the round was started by the poll's timer, which almost always finds nothing (events go out as they
    // commit, and a NOTIFY wakes the relay): such a round first asks whether anything waits, in one statement, rather
    // than opening a transaction with a locking read and committing it, two round trips (B8: the idle stack's CPU).
    let polled = false;
    while (this.running) {
      try {
        await this.ensureReady();
        // From here on, a commit's NOTIFY either finds its row in this batch or sends the relay round again.
        this.notified = false;
        const { read } = polled && !(await this.anyPending()) ? { read: 0 } : await this.relayOnce();
        polled = false;
        failures = 0;
        await this.purgeOccasionally();
        // A full batch may have more behind it (rows not taken step aside until their retry_at).
        if (read === BATCH_SIZE) continue;
        // A listener lost during the round (its wake-up found the relay awake) notifies no one: go round again at once,
        // which listens again and relays what was committed meanwhile, rather than sleeping a whole poll.
        if (!this.notified && this.listener) polled = !(await this.sleep(POLL_INTERVAL_MS));
      } catch (error) {
        polled = false;
        failures += 1;
        outboxMetrics.failures.inc();
        if (failures === 1 || failures % 30 === 0) this.logger.warn(`outbox relay: ${(error as Error).message}; retrying`);
        await this.sleep(Math.min(MAX_BACKOFF_MS, 200 * 2 ** Math.min(failures, 5)));
      }
    }
  }

  /** Whether a round would find a row to publish now (the pending index answers it, without a lock). */
  private async anyPending(): Promise<boolean> {
    return (await this.database.one<{ pending: boolean }>(ANY_PENDING))?.pending === true;
  }

  private async ensureReady(): Promise<void> {
    await this.nats.connect();
    if (!this.nats.isConnected()) throw new Error('NATS is not connected');
    await this.streams.ensure();
    if (!this.listener) await this.listen();
  }

  private async listen(): Promise<void> {
    const listener = new Client({ connectionString: this.options.databaseUrl, connectionTimeoutMillis: 3000, application_name: outboxListenerName(this.options.applicationName) });
    listener.on('notification', () => {
      this.notified = true;
      this.wake?.();
    });
    const lost = (reason: string) => {
      // Commits from now on notify no one: wake the relay, whose next round listens again and relays what they wrote,
      // rather than leaving their events for the poll up to 5 s later. (Awake, it sees the listener gone: run above.)
      if (this.listener !== listener) return;
      this.logger.warn(`outbox listener lost: ${reason}`);
      this.listener = undefined;
      void listener.end().catch(() => undefined);
      this.wake?.();
    };
    listener.on('error', (error) => lost(error.message));
    // A connection the server closed may end without an error first.
    listener.on('end', () => lost('connection ended'));
    try {
      await listener.connect();
      await listener.query(`LISTEN ${outboxChannel(this.options.schema)}`);
    } catch (error) {
      // The round fails and tries again with a new session: this one, connected or not, is closed, not left idle.
      await listener.end().catch(() => undefined);
      throw error;
    }
    this.listener = listener;
  }

  private async purgeOccasionally(): Promise<void> {
    if (Date.now() - this.lastPurge < PURGE_EVERY_MS) return;
    this.lastPurge = Date.now();
    await this.database.affected(`DELETE FROM outbox WHERE published_at < now() - interval '${KEEP_PUBLISHED}'`);
    // Set-aside rows are unpublished: the pending index finds them.
    await this.database.affected(`DELETE FROM outbox WHERE published_at IS NULL AND set_aside_at < now() - interval '${KEEP_SET_ASIDE}'`);
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

  /** Sleeps `ms`, or until something wakes the relay: true when woken, false when the time ran out. */
  private sleep(ms: number): Promise<boolean> {
    if (!this.running) return Promise.resolve(true);
    return new Promise((resolve) => {
      const done = (woken: boolean) => {
        clearTimeout(timer);
        if (this.wake === wake) this.wake = undefined;
        resolve(woken);
      };
      const wake = () => done(true);
      const timer = setTimeout(() => done(false), ms);
      this.wake = wake;
    });
  }
}

// What a round's locking read would take, asked without a transaction or lock (OutboxRelay.anyPending).
const ANY_PENDING = `SELECT EXISTS (SELECT 1 FROM outbox
    WHERE published_at IS NULL AND set_aside_at IS NULL AND (retry_at IS NULL OR retry_at <= now())) AS pending`;

// A row not taken. $3 is 1 for a refusal of the row itself: counted, set aside after $4 of them over at least $5, and
// offered again after 2^refusals seconds, at most $6. $3 is 0 when JetStream did not answer or was unavailable: not
// counted, offered again after $7 seconds. Delays run from the statement's own time (clock_timestamp), not from the
// transaction's start, which was before the batch waited for its acknowledgements.
const RECORD_FAILURE = `UPDATE outbox SET
    refusals = refusals + $3::integer,
    first_refused_at = CASE WHEN $3::integer = 1 THEN coalesce(first_refused_at, now()) ELSE first_refused_at END,
    last_refusal = $2,
    retry_at = clock_timestamp() + CASE WHEN $3::integer = 1 THEN least(power(2, refusals + 1), $6::float8) ELSE $7::float8 END * interval '1 second',
    set_aside_at = CASE WHEN $3::integer = 1 AND refusals + 1 >= $4 AND coalesce(first_refused_at, now()) <= now() - $5::interval THEN now() END
  WHERE id = $1
  RETURNING refusals, set_aside_at IS NOT NULL AS set_aside`;

/**
 * Offers every set-aside row to the relays again (after a fix: a stream that takes its subject, a larger size limit),
 * with its refusals counted afresh, and wakes them. Answers how many. The `republish-set-aside-events` command.
 */
export async function republishSetAside(database: Database, schema: string): Promise<number> {
  const rows = await database.rows<{ id: string }>(
    'UPDATE outbox SET set_aside_at = NULL, refusals = 0, first_refused_at = NULL, retry_at = NULL WHERE published_at IS NULL AND set_aside_at IS NOT NULL RETURNING id',
  );
  if (rows.length > 0) await notifyRelays(database, schema, 'republish');
  return rows.length;
}

/** Wakes the relays of every process of the service (those listening on its outbox's channel). */
function notifyRelays(database: Database, schema: string, reason: string): Promise<unknown> {
  return database.rows(NOTIFY_RELAYS, [outboxChannel(schema), reason]);
}

function isSecret(subject: string): boolean {
  return isEventSubject(subject) && streamOfEvent(subject) === 'secrets';
}

/** Ids of published events by what becomes of their rows: secrets (login codes, reset links) must not outlive their publication (ARCHITECTURE §3), and are deleted; the rest are marked. */
function bySecrecy(published: ReadonlyArray<{ id: string; subject: string }>): { secret: string[]; kept: string[] } {
  const secret: string[] = [];
  const kept: string[] = [];
  for (const { id, subject } of published) (isSecret(subject) ? secret : kept).push(id);
  return { secret, kept };
}

// The marks of a process's dispatched events (markWaiting), prepared on each connection. A row a relay's round holds
// (it took the row while it was dispatched, and waits for its acknowledgements) is left to that round, which marks it,
// rather than waited for on a pooled connection; a row a round marked already keeps its mark.
// $1: the rows; $2: for each, the milliseconds since its publication began.
const MARK_PUBLISHED = prepared(
  `UPDATE outbox o SET published_at = now() - marked.elapsed * interval '1 millisecond'
     FROM unnest($1::uuid[], $2::float8[]) AS marked (id, elapsed)
    WHERE o.id = marked.id AND o.id IN (SELECT id FROM outbox WHERE id = ANY($1::uuid[]) AND published_at IS NULL FOR UPDATE SKIP LOCKED)`,
);
const DELETE_PUBLISHED = prepared('DELETE FROM outbox WHERE id IN (SELECT id FROM outbox WHERE id = ANY($1::uuid[]) FOR UPDATE SKIP LOCKED)');
const NOTIFY_RELAYS = prepared('SELECT pg_notify($1, $2)');

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** An SQL literal of outbox ids, which the outbox's uuid column gave: checked anyway, since it is spliced into SQL. */
function uuidArray(ids: readonly string[]): string {
  for (const id of ids) if (!UUID.test(id)) throw new Error(`not an outbox id: ${JSON.stringify(id).slice(0, 60)}`);
  return `ARRAY[${ids.map((id) => `'${id}'`).join(',')}]::uuid[]`;
}
