import type { IncomingMessage } from 'node:http';
import { type DynamicModule, Logger as NestLogger, type Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyServerOptions } from 'fastify';
import { type BaseConfig, ConfigError } from '../config';
import { acceptCorrelationId, CORRELATION_HEADER, requestContext } from '../context';
import { dataSourceOptions, migrateSchema, type DatabaseOptions } from '../database';
import { fastifyLogging, NestPinoLogger, serviceLoggerFor } from '../logging';
import { collectProcessMetrics, httpMetrics } from '../metrics';
import { NatsClient } from '../nats/nats.connection';
import { RpcErrorPassThroughFilter } from '../nats/rpc-exception.filter';
import { NatsRpcServer } from '../nats/rpc.server';
import { stopTracing } from '../tracing';

// Kubernetes sends SIGKILL 30 s after SIGTERM by default: finish well before, or give up loudly.
const SHUTDOWN_DEADLINE_MS = 25_000;

export interface ServiceCommand<C> {
  describe: string;
  run(config: C, args: string[]): Promise<void>;
}

export interface ServiceDefinition<C> {
  name: string;
  /** Reads and validates the environment; throws ConfigError listing every bad variable. */
  loadConfig(): C;
  port(config: C): number;
  module(config: C): Type | DynamicModule;
  /** Answer the RPC subjects of this service's @MessagePattern handlers. */
  rpc?: boolean;
  /** The service's schema; enables the `migrate` command. */
  database?(config: C): DatabaseOptions;
  /** Extra CLI commands, e.g. `seed-tags`. */
  commands?: Record<string, ServiceCommand<C>>;
  /** Fastify settings of an HTTP edge: body limit, parameter length, how router errors are answered. */
  fastify?: Pick<FastifyServerOptions, 'bodyLimit' | 'maxParamLength' | 'frameworkErrors'>;
  configureApp?(app: NestFastifyApplication, config: C): void | Promise<void>;
}

function fail(message: string, exitCode = 1): never {
  process.stderr.write(`${message}\n`);
  process.exit(exitCode);
}

/**
 * The one entry point of every Nest service: `main.js` starts the service; `main.js migrate` (and the
 * service's own commands) run once and exit. Configuration is validated first, and every problem listed.
 */
export async function runService<C>(definition: ServiceDefinition<C>): Promise<void> {
  let config: C;
  try {
    config = definition.loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) fail(`${definition.name}: ${error.message}`);
    throw error;
  }
  const [command, ...args] = process.argv.slice(2);
  if (command) {
    await runCommand(definition, config, command, args);
    return;
  }
  await startServer(definition, config);
}

async function runCommand<C>(definition: ServiceDefinition<C>, config: C, command: string, args: string[]): Promise<void> {
  const commands: Record<string, ServiceCommand<C>> = { ...definition.commands };
  if (definition.database) {
    const database = definition.database;
    commands.migrate = {
      describe: 'create the schema and run pending migrations',
      async run(current) {
        const options = database(current);
        const ran = await migrateSchema(dataSourceOptions(options) as Parameters<typeof migrateSchema>[0]);
        process.stdout.write(`${definition.name}: schema ${options.schema} is up to date${ran.length ? ` (ran ${ran.join(', ')})` : ''}\n`);
      },
    };
  }
  const chosen = commands[command];
  if (!chosen) {
    const usage = Object.entries(commands).map(([name, { describe }]) => `  ${name.padEnd(12)} ${describe}`);
    fail(`${definition.name}: unknown command "${command}". Commands:\n  (none)       start the service\n${usage.join('\n')}`, 2);
  }
  try {
    await chosen.run(config, args);
    process.exit(0);
  } catch (error) {
    fail(`${definition.name} ${command} failed: ${(error as Error).message}`);
  }
}

async function startServer<C>(definition: ServiceDefinition<C>, config: C): Promise<void> {
  collectProcessMetrics(definition.name);
  // One pino logger for Fastify's request lines, Nest and the platform (the same one PlatformModule provides).
  const { LOG_LEVEL, LOG_PRETTY } = config as C & Partial<BaseConfig>;
  const logger = serviceLoggerFor({ service: definition.name, level: LOG_LEVEL ?? 'info', pretty: LOG_PRETTY ?? false });
  const app = await NestFactory.create<NestFastifyApplication>(
    definition.module(config),
    new FastifyAdapter({
      ...definition.fastify,
      // Fastify logs each request once, at completion; at debug unless it failed or was slow.
      ...fastifyLogging(logger),
      // The request id is the correlation id: the caller's if it sent a sane one, else a new one.
      genReqId: (request: { headers: IncomingMessage['headers'] }) => acceptCorrelationId(request.headers[CORRELATION_HEADER]),
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
    httpMetrics.duration.observe({ method: request.method, route, status: String(reply.statusCode) }, reply.elapsedTime / 1000);
    done();
  });
  await definition.configureApp?.(app, config);
  if (definition.rpc) {
    const rpc = app.connectMicroservice({ strategy: new NatsRpcServer(app.get(NatsClient), definition.name) }, { deferInitialization: true });
    rpc.useGlobalFilters(new RpcErrorPassThroughFilter());
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
  await app.startAllMicroservices();
  new NestLogger(definition.name).log(`listening on :${port}`);
}
