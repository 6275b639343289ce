import { connect, type NatsConnection } from '@nats-io/transport-node';
import { Client } from 'pg';
import { createDatabase, databaseNameOf, deleteNamespaceStreams, dropDatabase, freePort, isolatedName, PushSink, runServiceCommand, ServiceProcess, SmtpSink, testInfra } from '@homing/testing';
import { migrationEnv, STACK_TEMPLATE_VARIABLE } from './stack-template';

export const BACKEND_SERVICES = ['identity', 'items', 'messaging', 'notifications'] as const;
export type BackendService = (typeof BACKEND_SERVICES)[number];

/**
 * The whole product as `npm start` runs it, in its own database and NATS namespace: every built service a process, each
 * in its schema (named after the service) of a database copied from the run's migrated template (stack-template.ts).
 */
export interface Stack {
  namespace: string;
  /** `http://127.0.0.1:<port>` of the gateway, and its `/api/v1`. */
  base: string;
  /**
   * PUBLIC_URL of the stack, `http://localhost:<port>` of the gateway: the origin e-mails link to and passkeys are
   * bound to (WebAuthn takes no IP address as its relying party), so a browser test of passkeys opens pages here.
   */
  publicUrl: string;
  api: string;
  nc: NatsConnection;
  db: Client;
  services: Map<string, ServiceProcess>;
  /** The SMTP server notifications sends to (unless a suite gives it another `SMTP_URL`): every e-mail of the run. */
  mail: SmtpSink;
  /** The push service every subscription of the stack may name (its host is allowed, its certificate trusted). */
  push: PushSink;
  /** With `relay: true`: the mail relay's SMTP port on 127.0.0.1, for `tag-…@` and `c-…@` the RELAY_DOMAIN below. */
  relaySmtpPort?: number;
  schemaOf(service: BackendService): string;
  /** Environment every process of the stack shares (NATS namespace, the stack's database, Redis). */
  shared: NodeJS.ProcessEnv;
  /** Environment of a service as the stack started it (for its commands). */
  envOf(service: BackendService): NodeJS.ProcessEnv;
  stop(): Promise<void>;
}

export interface StackOptions {
  /** Extra environment per service (`gateway` and `mail-relay` included). */
  env?: Partial<Record<BackendService | 'gateway' | 'mail-relay', NodeJS.ProcessEnv>>;
  /** Also start the mail relay (apps/mail-relay), for RELAY_DOMAIN `relay.localhost` as the other services default to. */
  relay?: boolean;
  /** Runs after migrations, before the services start (seeding). */
  beforeStart?(stack: Pick<Stack, 'envOf'>): Promise<void>;
}

export async function startStack(options: StackOptions = {}): Promise<Stack> {
  const infra = testInfra();
  const namespace = isolatedName();
  const schemaOf = (service: BackendService): string => service;
  // Each stack has its own mailbox: e-mails never reach a development MailDev on the fixed port 1025.
  const mail = await new SmtpSink().start();
  // And its own push service: notifications may call it (an allowed host) and trusts its self-signed certificate.
  const push = await new PushSink().start();
  const gatewayPort = await freePort();
  const publicUrl = `http://localhost:${gatewayPort}`;
  const database = `${databaseNameOf(infra.databaseUrl)}_${namespace}`;
  const template = process.env[STACK_TEMPLATE_VARIABLE];
  const databaseUrl = await createDatabase(infra.databaseUrl, database, template);
  const shared = { DATABASE_URL: databaseUrl, NATS_URL: infra.natsUrl, REDIS_URL: infra.redisUrl, NATS_NAMESPACE: namespace, NODE_ENV: 'test' };
  const envOf = (service: BackendService): NodeJS.ProcessEnv => ({
    ...shared,
    DATABASE_SCHEMA: schemaOf(service),
    // Welcome mails at once unless a suite asks otherwise (in production they wait for activation's password step).
    // identity binds passkeys to PUBLIC_URL's host and origin.
    ...(service === 'identity' ? { PUBLIC_URL: publicUrl } : {}),
    ...(service === 'notifications' ? { SMTP_URL: mail.url, PUSH_SERVICE_HOSTS: push.host, NODE_EXTRA_CA_CERTS: push.caPath, WELCOME_MAIL_DELAY_MINUTES: '0' } : {}),
    ...options.env?.[service],
  });

  // Run outside the tiers' global setup (no template): each service migrates its own schema, side by side.
  if (!template) await Promise.all(BACKEND_SERVICES.map((service) => runServiceCommand(service, ['migrate'], migrationEnv(infra, databaseUrl, service, namespace))));
  await options.beforeStart?.({ envOf });
  const services = new Map<string, ServiceProcess>();
  for (const service of BACKEND_SERVICES) services.set(service, new ServiceProcess(service, await freePort(), envOf(service)));
  services.set(
    'gateway',
    new ServiceProcess('gateway', gatewayPort, { ...shared, WEB_DIST: 'dist/apps/web', PUBLIC_URL: publicUrl, ...options.env?.gateway }),
  );
  const relaySmtpPort = options.relay ? await freePort() : undefined;
  if (relaySmtpPort) {
    // Test senders' domains have no DNS: a suite about the sender check turns it on with a DNS server of its own.
    const relayEnv = { RELAY_SMTP_PORT: String(relaySmtpPort), RELAY_SMTP_HOST: '127.0.0.1', RELAY_SENDER_AUTHENTICATION: 'off' };
    services.set('mail-relay', new ServiceProcess('mail-relay', await freePort(), { ...shared, ...relayEnv, ...options.env?.['mail-relay'] }));
  }
  try {
    await Promise.all([...services.values()].map((service) => service.start()));
  } catch (error) {
    // A service that never got ready must not leave the others running: the test run would wait on them for ever.
    await Promise.all([...services.values()].map((service) => service.stop().catch(() => undefined)));
    await Promise.all([mail.stop(), push.stop(), dropDatabase(infra.databaseUrl, database)]);
    throw error;
  }
  const nc = await connect({ servers: infra.natsUrl });
  const db = new Client({ connectionString: databaseUrl });
  await db.connect();
  const base = `http://127.0.0.1:${gatewayPort}`;
  return {
    namespace,
    base,
    publicUrl,
    api: `${base}/api/v1`,
    nc,
    db,
    services,
    mail,
    push,
    relaySmtpPort,
    schemaOf,
    shared,
    envOf,
    async stop() {
      await Promise.all([...services.values()].map((service) => service.stop()));
      await deleteNamespaceStreams(nc, namespace);
      await nc.drain();
      await db.end();
      await dropDatabase(infra.databaseUrl, database);
      await mail.stop();
      await push.stop();
    },
  };
}

/**
 * Every RPC to `service` that any process of the stack sends while `work` runs, by subject: a listener beside the
 * service's own queue group sees each request once.
 */
export async function rpcCallsDuring(stack: Pick<Stack, 'nc' | 'namespace'>, service: BackendService, work: () => Promise<void>): Promise<string[]> {
  const calls: string[] = [];
  const subscription = stack.nc.subscribe(`${stack.namespace}.${service}.rpc.>`, { callback: (_error, msg) => void calls.push(msg.subject) });
  await stack.nc.flush();
  try {
    await work();
    await stack.nc.flush();
  } finally {
    subscription.unsubscribe();
  }
  return calls;
}

/**
 * The stack of one test file: started before its tests, stopped after them. The object is filled in when it has
 * started, so the file's tests use it as they would `startStack`'s answer.
 */
export function stackForSuite(options: StackOptions = {}): Stack {
  const stack = {} as Stack;
  beforeAll(async () => {
    Object.assign(stack, await startStack(options));
  });
  afterAll(async () => {
    if ('stop' in stack) await stack.stop();
  });
  return stack;
}
