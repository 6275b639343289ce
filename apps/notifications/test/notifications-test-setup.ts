import { randomUUID } from 'node:crypto';
import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import { connect, headers as natsHeaders, type NatsConnection } from '@nats-io/transport-node';
import { Queue } from 'bullmq';
import IORedis from 'ioredis';
import { Client } from 'pg';
import { RPC_ERROR_HEADER, STREAMS, streamOfEvent, type DomainEvent, type EventSubject, type RpcRequest, type RpcResponse, type RpcSubject, type UserLanguage } from '@homing/contracts';
import { deleteNamespaceStreams, dropSchemas, ensureDatabase, expectEventually, freePort, isolatedName, runServiceCommand, ServiceProcess, testInfra, type PushSink } from '@homing/testing';
import { QUEUES } from '../src/persisted-names';

type QueueName = (typeof QUEUES)[keyof typeof QUEUES];
export interface TestRecipient {
  id: string;
  email: string;
  language: UserLanguage;
  /** As identity answers it: whether the user has a password (the welcome mail's link depends on it). */
  hasPassword?: boolean;
}

/** An event as its producer's outbox would publish it, occurring now unless told otherwise. */
export function eventOf<S extends EventSubject>(subject: S, data: DomainEvent<S>['data'], occurredAt = new Date()): DomainEvent<S> {
  // DomainEvent<S> distributes over S, which TypeScript cannot follow for a generic S: the envelope is the same.
  return {
    id: randomUUID(),
    subject,
    occurredAt: occurredAt.toISOString(),
    correlationId: 'notifications-test',
    causationId: null,
    producer: subject.split('.')[0],
    aggregateId: 'aggregate',
    version: 1,
    data,
  } as DomainEvent<S>;
}

/** An item's event as items publishes it: the item's code as aggregate, its version shared by all its events. */
export function itemEventOf<S extends EventSubject>(subject: S, data: DomainEvent<S>['data'], code: string, version: number, occurredAt = new Date()): DomainEvent<S> {
  return { ...eventOf(subject, data, occurredAt), aggregateId: code, version } as DomainEvent<S>;
}

/**
 * What every notifications integration test sets up, isolated per test file: a schema migrated, a NATS namespace
 * (streams, RPC subjects), BullMQ's prefix, the service's processes, and the responders standing in for identity.
 * `tearDown()` stops the processes and removes all of it, and returns the processes' exit codes.
 */
export class NotificationsTestSetup {
  readonly infra = testInfra();
  readonly namespace = isolatedName();
  readonly schema = `notifications_${this.namespace}`;
  /** The environment every process of this test gets (the database, NATS and Redis of the test, and `env`). */
  readonly env: NodeJS.ProcessEnv;
  readonly processes: ServiceProcess[] = [];
  nc!: NatsConnection;
  js!: JetStreamClient;
  jsm!: JetStreamManager;
  db!: Client;
  private redis?: IORedis;
  private readonly queues = new Map<QueueName, Queue>();

  constructor(env: NodeJS.ProcessEnv = {}) {
    this.env = {
      DATABASE_URL: this.infra.databaseUrl,
      DATABASE_SCHEMA: this.schema,
      NATS_URL: this.infra.natsUrl,
      NATS_NAMESPACE: this.namespace,
      REDIS_URL: this.infra.redisUrl,
      // Welcome mails at once unless a test asks otherwise (in production they wait for activation's password step).
      WELCOME_MAIL_DELAY_MINUTES: '0',
      ...env,
    };
  }

  /**
   * Connects to the test's database and NATS and migrates the schema; no process runs yet. `env` adds what is known
   * only now (a sink's port).
   */
  async setUp(env: NodeJS.ProcessEnv = {}): Promise<void> {
    Object.assign(this.env, env);
    await ensureDatabase(this.infra.databaseUrl);
    this.nc = await connect({ servers: this.infra.natsUrl });
    this.js = jetstream(this.nc);
    this.jsm = await jetstreamManager(this.nc);
    await runServiceCommand('notifications', ['migrate'], this.env);
    this.db = new Client({ connectionString: this.infra.databaseUrl });
    await this.db.connect();
  }

  /** Starts a notifications process with the test's environment and `env`, and waits until it is ready (or live). */
  async start(env: NodeJS.ProcessEnv = {}, { timeoutMs = 30_000, until = 'ready' }: { timeoutMs?: number; until?: 'ready' | 'live' } = {}): Promise<ServiceProcess> {
    const service = new ServiceProcess('notifications', await freePort(), { ...this.env, ...env });
    this.processes.push(service);
    await service.start(timeoutMs, { until });
    return service;
  }

  /** Answers identity's `get-user` as identity does: the user, or a 404 error reply for one it does not know. */
  answerUsers(userOf: (userId: string) => TestRecipient | undefined | Promise<TestRecipient | undefined>): void {
    this.nc.subscribe(`${this.namespace}.identity.rpc.get-user`, {
      callback: (_error, msg) => {
        void Promise.resolve(userOf(msg.json<{ userId: string }>().userId)).then((user) => {
          if (user) return void msg.respond(JSON.stringify(user));
          const headers = natsHeaders();
          headers.set(RPC_ERROR_HEADER, '1');
          msg.respond(JSON.stringify({ status: 404, response_code: 'NOT_FOUND', message: 'user not found' }), { headers });
        });
      },
    });
  }

  /** Publishes an event as an outbox relay would; `msgId` other than the event id makes JetStream store it again. */
  publish(event: DomainEvent, msgId = event.id) {
    return this.js.publish(`${this.namespace}.${event.subject}`, JSON.stringify(event), { msgID: msgId });
  }

  /** Items says who the item's people are now (at `version`), and the people consumer has applied it. */
  async itemPeopleChanged(code: string, version: number, ownerUserId: string, coOwnerUserIds: string[]): Promise<void> {
    await this.publish(itemEventOf('items.item.people-changed.v1', { code, ownerUserId, coOwnerUserIds }, code, version));
    await this.consumerSettled('items.item.people-changed.v1', 'notifications__item-people');
  }

  /** An RPC of notifications as the gateway calls it, expected to succeed: its answer. */
  async rpc<S extends RpcSubject>(subject: S, request: RpcRequest<S>): Promise<RpcResponse<S>> {
    const reply = await this.nc.request(`${this.namespace}.${subject}`, JSON.stringify(request), { timeout: 5000 });
    expect(reply.headers?.get(RPC_ERROR_HEADER)).toBeFalsy();
    return reply.json<RpcResponse<S>>();
  }

  /** A browser of the user's subscribed to pushes at the push sink; its subscription. */
  async subscribeToPush(push: PushSink, userId: string): Promise<ReturnType<PushSink['subscribe']>> {
    const subscription = push.subscribe();
    await this.rpc('notifications.rpc.register-push', { subscriber: { userId }, subscription } as RpcRequest<'notifications.rpc.register-push'>);
    return subscription;
  }

  /** The test's stream that carries a subject (the secrets stream or the events stream, as the contracts say). */
  streamOf(subject: EventSubject): string {
    return `${this.namespace.toUpperCase()}_${STREAMS[streamOfEvent(subject)].name}`;
  }

  /** Waits until the durable consumer exists (a consumer starts at new events: publish only once it does). */
  consumerExists(subject: EventSubject, durable: string) {
    return expectEventually(() => this.jsm.consumers.info(this.streamOf(subject), durable));
  }

  /** Waits until the durable consumer has handled and acknowledged everything it was given. */
  consumerSettled(subject: EventSubject, durable: string) {
    return expectEventually(async () => {
      const info = await this.jsm.consumers.info(this.streamOf(subject), durable);
      expect(info.num_pending + info.num_ack_pending).toBe(0);
    });
  }

  /** The test's `email` or `push` queue, under the prefix the processes use. */
  queue(name: QueueName): Queue {
    this.redis ??= new IORedis(this.infra.redisUrl, { maxRetriesPerRequest: null });
    let queue = this.queues.get(name);
    if (!queue) {
      queue = new Queue(name, { connection: this.redis, prefix: `homing_${this.namespace}` });
      this.queues.set(name, queue);
    }
    return queue;
  }

  /** Waits until the queue has nothing waiting, running or delayed. */
  jobsSettled(name: QueueName) {
    return expectEventually(async () => {
      const counts = await this.queue(name).getJobCounts('waiting', 'active', 'delayed');
      expect(counts).toEqual({ waiting: 0, active: 0, delayed: 0 });
    });
  }

  /** Stops every process and removes the test's schema, streams and jobs; the processes' exit codes. */
  async tearDown(): Promise<Array<number | null>> {
    const exitCodes = await Promise.all(this.processes.map((service) => service.stop()));
    for (const queue of this.queues.values()) {
      await queue.obliterate({ force: true }).catch(() => undefined);
      await queue.close();
    }
    this.redis?.disconnect();
    await this.db?.end();
    if (this.nc) {
      await deleteNamespaceStreams(this.nc, this.namespace);
      await this.nc.drain();
    }
    await dropSchemas(this.infra.databaseUrl, [this.schema]);
    return exitCodes;
  }
}
