import { generateKeyPairSync } from 'node:crypto';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import Redis from 'ioredis';
import { Client } from 'pg';
import { RPC_ERROR_HEADER, type RpcErrorBody, type RpcRequest, type RpcResponse, type RpcSubject } from '@homing/contracts';
import { deleteNamespaceStreams, dropSchemas, ensureDatabase, expectEventually, freePort, isolatedName, runServiceCommand, ServiceProcess, testInfra } from '@homing/testing';

export type RpcAnswer<S extends RpcSubject> = { ok: true; body: RpcResponse<S> } | { ok: false; error: RpcErrorBody };

/**
 * The built identity service as its own process (as in production) on the test PostgreSQL, NATS and Redis, in a
 * schema and NATS namespace of its own; tests call its RPC subjects over NATS and look at its tables and keys.
 */
export class IdentityHarness {
  readonly infra = testInfra();
  readonly namespace = isolatedName();
  readonly schema = `identity_${this.namespace}`;
  readonly keys = generateKeyPairSync('ec', { namedCurve: 'P-256', publicKeyEncoding: { type: 'spki', format: 'pem' }, privateKeyEncoding: { type: 'pkcs8', format: 'pem' } });
  service!: ServiceProcess;
  nc!: NatsConnection;
  db!: Client;
  redis!: Redis;

  constructor(private readonly extraEnv: NodeJS.ProcessEnv = {}) {}

  get env(): NodeJS.ProcessEnv {
    return {
      NODE_ENV: 'test',
      LOG_LEVEL: 'info',
      DATABASE_URL: this.infra.databaseUrl,
      DATABASE_SCHEMA: this.schema,
      NATS_URL: this.infra.natsUrl,
      NATS_NAMESPACE: this.namespace,
      REDIS_URL: this.infra.redisUrl,
      JWT_PRIVATE_KEY: this.keys.privateKey,
      // Its own pair's public key, not the process's test keys' (identity refuses a public key of another pair).
      JWT_PUBLIC_KEY: this.keys.publicKey,
      ...this.extraEnv,
    };
  }

  /** Migrates and starts the service; `until: 'live'` when a dependency is meant to be away (not ready). */
  async start({ until = 'ready' }: { until?: 'ready' | 'live' } = {}): Promise<void> {
    await ensureDatabase(this.infra.databaseUrl);
    await runServiceCommand('identity', ['migrate'], this.env);
    this.service = new ServiceProcess('identity', await freePort(), this.env);
    await this.service.start(20_000, { until });
    this.nc = await connect({ servers: this.infra.natsUrl, noAsyncTraces: true });
    // Live comes before the RPC server has subscribed (it answers while the service waits for NATS): wait until a
    // request has a responder, whatever it answers (here a refusal of a malformed id), or the test's first call may
    // find none.
    if (until === 'live') await expectEventually(() => this.call('identity.rpc.get-user', { userId: 'not-a-user-id' }, 1000), { timeoutMs: 20_000, intervalMs: 100 });
    this.db = new Client({ connectionString: this.infra.databaseUrl, options: `-c search_path=${this.schema}` });
    await this.db.connect();
    this.redis = new Redis(this.env.REDIS_URL as string, { lazyConnect: true, enableOfflineQueue: false });
    await this.redis.connect().catch(() => undefined);
  }

  async stop(): Promise<void> {
    await this.service?.stop();
    if (this.nc) {
      await deleteNamespaceStreams(this.nc, this.namespace);
      await this.nc.drain();
    }
    await this.db?.end();
    this.redis?.disconnect(false);
    await dropSchemas(this.infra.databaseUrl, [this.schema]);
  }

  /** Calls an RPC subject as the gateway would (raw NATS, so nothing is validated on the way out). */
  async call<S extends RpcSubject>(subject: S, request: RpcRequest<S>, timeoutMs = 5000): Promise<RpcAnswer<S>> {
    const reply = await this.nc.request(`${this.namespace}.${subject}`, JSON.stringify(request), { timeout: timeoutMs });
    const body = reply.json<unknown>();
    return reply.headers?.get(RPC_ERROR_HEADER) === '1' ? { ok: false, error: body as RpcErrorBody } : { ok: true, body: body as RpcResponse<S> };
  }

  /** Calls a subject expected to succeed; fails the test with the error otherwise. */
  async ok<S extends RpcSubject>(subject: S, request: RpcRequest<S>): Promise<RpcResponse<S>> {
    const answer = await this.call(subject, request);
    if (!answer.ok) throw new Error(`${subject} answered ${JSON.stringify(answer.error)}`);
    return answer.body;
  }

  /** Calls a subject expected to fail; fails the test if it succeeded. */
  async refused<S extends RpcSubject>(subject: S, request: RpcRequest<S>): Promise<RpcErrorBody> {
    const answer = await this.call(subject, request);
    if (answer.ok) throw new Error(`${subject} succeeded: ${JSON.stringify(answer.body)}`);
    return answer.error;
  }

  async query<T = Record<string, unknown>>(sql: string, values: unknown[] = []): Promise<T[]> {
    return (await this.db.query(sql, values)).rows as T[];
  }
}

/** The claims of an access token, read without verifying (the test checks what identity put in). */
export function claimsOf(token: string): { id: string; email: string; sid: string; jti: string; exp: number; iat: number; is_admin: boolean } {
  return JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString());
}
