import type { IncomingMessage } from 'node:http';
import { type DynamicModule, Logger as NestLogger, type Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import { type BaseConfig, ConfigError } from '../config';
import { acceptCorrelationId, CORRELATION_HEADER, requestContext } from '../context';
import type { DatabaseOptions } from '../database/database.options';
import { createLogger, fastifyLogging, NestPinoLogger } from '../logging';
import { collectProcessMetrics, httpMetrics } from '../metrics';
import type { RetentionRules } from '../retention';
import { NatsClient } from '../nats/nats.connection';
import { rpcHandlersOf } from '../nats/rpc-handler.decorator';
import { NatsRpcServer } from '../nats/rpc.server';
import { stopTracing } from '../tracing';
import { fail } from './fail';
import { routeSchemaCompilers } from './route-schema-compilers';

// Kubernetes sends SIGKILL 30 s after SIGTERM by default: finish well before, or give up loudly.
const SHUTDOWN_DEADLINE_MS = 25_000;
// Requests in flight at shutdown get this long to be answered before connections are closed by force.
const HTTP_GRACE_MS = 5000;

export interface ServiceCommand<C> {
  describe: string;
  run(config: C, args: string[]): Promise<void>;
}

export interface ServiceDefinition<C extends BaseConfig> {
  name: string;
  /** Reads and validates the environment; throws ConfigError listing every bad variable. */
  loadConfig(): C;
  port(config: C): number;
  module(config: C): Type | DynamicModule;
  /** Answer the RPC subjects of this service's @RpcHandler handlers. */
  rpc?: boolean;
  /** The service's schema; enables the `migrate` command. */
  database?(config: C): DatabaseOptions;
  /** The service's retention rules; with `database`, enables the `purge-expired` command (the timer is retentionProviders). */
  retention?: RetentionRules<C>;
  /** Extra CLI commands, e.g. `seed-tags`. */
  commands?: Record<string, ServiceCommand<C>>;
  /**
   * Fastify settings of an HTTP edge: body limit, parameter length, how router errors are answered, and whether
   * shutdown closes connections still open once the requests in flight had their grace period.
   */
  fastify?: Pick<FastifyServerOptions, 'bodyLimit' | 'routerOptions' | 'frameworkErrors' | 'clientErrorHandler' | 'forceCloseConnections' | 'trustProxy'>;
  /** Fastify settings that depend on the configuration (trusted proxies). */
  fastifyFromConfig?(config: C): Pick<FastifyServerOptions, 'trustProxy'>;
  configureApp?(app: NestFastifyApplication, config: C): void | Promise<void>;
}

/**
 * The one entry point of every Nest service: `main.js` starts the service; `main.js migrate` (and the
 * service's own commands) run once and exit. Configuration is validated first, and every problem listed.
 */
export async function runService<C extends BaseConfig>(definition: ServiceDefinition<C>): Promise<void> {
  let config: C;
  try {
    config = definition.loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) fail(`${definition.name}: ${error.message}`);
    throw error;
  }
  const [command, ...args] = process.argv.slice(2);
  if (command) {
    // Loaded only for a command: migrations, retention and dead letters are no part of a service's start path.
    const { runCommand } = await import('@homing/platform/service-commands');
    await runCommand(definition, config, command, args);
    return;
  }
  await startServer(definition, config);
}

async function startServer<C extends BaseConfig>(definition: ServiceDefinition<C>, config: C): Promise<void> {
  collectProcessMetrics(definition.name);
  // One pino logger for Fastify's request lines, Nest and the platform (the same one PlatformModule provides).
  const logger = createLogger({ service: definition.name, level: config.LOG_LEVEL, pretty: config.LOG_PRETTY });
  const app = await NestFactory.create<NestFastifyApplication>(
    definition.module(config),
    new FastifyAdapter({
      ...definition.fastify,
      ...definition.fastifyFromConfig?.(config),
      // Fastify logs each request once, at completion; at debug unless it failed or was slow.
      ...fastifyLogging(logger),
      // The request id is the correlation id: the caller's if it sent a sane one, else a new one.
      genReqId: (request: { headers: IncomingMessage['headers'] }) => acceptCorrelationId(request.headers[CORRELATION_HEADER]),
      schemaController: { compilersFactory: routeSchemaCompilers },
    }),
    // Fastify's own JSON parser only; Nest's would add a form (urlencoded) parser the contract refuses.
    { logger: new NestPinoLogger(logger), bodyParser: false },
  );
  // Every request runs in its own context: the caller's correlation id (or a new one) follows it into logs, RPC
  // calls and the events it causes, and is echoed in the answer.
  const fastify = app.getHttpAdapter().getInstance();
  fastify.addHook('onRequest', (request, reply, done) => {
    const correlationId = request.id;
    void reply.header(CORRELATION_HEADER, correlationId);
    requestContext.run({ correlationId, causationId: null }, done);
  });
  // Labelled by route pattern (`/api/v1/items/:code`), never by raw URL: codes must not become label values.
  fastify.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url ?? 'unmatched';
    httpMetrics.duration.observe([request.method, route, String(reply.statusCode)], reply.elapsedTime / 1000);
    done();
  });
  if (definition.fastify?.forceCloseConnections === true) answerInFlightBeforeForcedClose(fastify);
  await definition.configureApp?.(app, config);
  if (definition.rpc) {
    app.connectMicroservice({ strategy: new NatsRpcServer(app.get(NatsClient), definition.name, rpcHandlersOf(app), { maxInFlight: config.RPC_MAX_IN_FLIGHT }) }, { deferInitialization: true });
  }

  // SIGTERM: readiness fails, consumers and the relay finish their current event, HTTP and RPC stop taking work
  // and answer what is in flight, then connections close (Nest's lifecycle hooks, in that order). Exit 0 once
  // done, or 1 if it takes longer than the orchestrator will wait.
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    new NestLogger(definition.name).log(`${signal}: shutting down`);
    setTimeout(() => {
      process.stderr.write(`${definition.name}: shutdown took over ${SHUTDOWN_DEADLINE_MS} ms; exiting\n`);
      process.exit(1);
    }, SHUTDOWN_DEADLINE_MS).unref();
    // Whatever still waits for a first NATS connection (RPC server, relay, consumers) gives up now.
    app.get(NatsClient, { strict: false }).stopWaiting();
    void app
      .close()
      .then(() => stopTracing())
      .then(
        () => process.exit(0),
        (error: unknown) => {
          process.stderr.write(`${definition.name}: shutdown failed: ${(error as Error).message}\n`);
          process.exit(1);
        },
      );
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);

  const port = definition.port(config);
  await app.listen({ port, host: '0.0.0.0' });
  // After listen, so /health/live answers while the RPC server waits for NATS.
  try {
    await app.startAllMicroservices();
  } catch (error) {
    // SIGTERM while waiting for NATS: the wait was given up on purpose and shutdown is under way.
    if (stopping) return;
    throw error;
  }
  new NestLogger(definition.name).log(`listening on :${port}`);
}

/**
 * With `forceCloseConnections`, Fastify destroys every connection as it closes, long-lived responses (server-sent
 * events) included. Before that, give ordinary requests in flight a bounded time to be answered.
 */
function answerInFlightBeforeForcedClose(fastify: FastifyInstance): void {
  let inFlight = 0;
  // 'close' comes once per response, answered or abandoned by the client: one shared listener, no closure per request.
  const answered = () => (inFlight -= 1);
  fastify.addHook('onRequest', (_request, reply, done) => {
    inFlight += 1;
    reply.raw.on('close', answered);
    done();
  });
  fastify.addHook('preClose', async () => {
    const deadline = Date.now() + HTTP_GRACE_MS;
    while (inFlight > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
  });
}
