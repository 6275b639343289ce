import type { BaseConfig } from '../config';
import { dataSourceOptions } from '../database/database.options';
import { withDatabase } from '../database/database';
import { migrateSchema } from '../database/migrate';
import { replayDeadLetters } from '../inbox/dead-letters';
import { JetStreamStreams, jetStreamSettingsOf } from '../nats/jetstream-streams';
import { NatsClient } from '../nats/nats.connection';
import { republishSetAside } from '../outbox/outbox.relay';
import { purgeExpired } from '../retention';
import { fail } from './fail';
import type { ServiceCommand, ServiceDefinition } from './run-service';

// A service's one-off commands (`main.js migrate`, …), loaded by runService only when one is asked for.

export async function runCommand<C extends BaseConfig>(definition: ServiceDefinition<C>, config: C, command: string, args: string[]): Promise<void> {
  const commands: Record<string, ServiceCommand<C>> = { ...definition.commands };
  if (definition.database) {
    const database = definition.database;
    commands['replay-dead-letters'] = {
      describe: "republish dead-lettered events to their consumer after a fix ([--consumer <durable name>], else all of this service's)",
      run: (current, commandArgs) => replayDeadLettersCommand(definition.name, current, commandArgs),
    };
    commands['republish-set-aside-events'] = {
      describe: 'offer outbox events that JetStream refused for an hour (set aside) to the relays again, after a fix',
      run: async (current) => {
        const options = database(current);
        const count = await withDatabase(options, (opened) => republishSetAside(opened, options.schema));
        process.stdout.write(`${definition.name}: ${count} set-aside event(s) offered to the relays again\n`);
      },
    };
    const retention = definition.retention;
    if (retention) {
      commands['purge-expired'] = {
        describe: 'run every retention rule once and exit ([--now <ISO time>] to purge as of that time)',
        run: (current, commandArgs) => purgeExpired(definition.name, database(current), current, retention, commandArgs),
      };
    }
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
    const width = Math.max('(none)'.length, ...Object.keys(commands).map((name) => name.length));
    const usage = Object.entries(commands).map(([name, { describe }]) => `  ${name.padEnd(width)}  ${describe}`);
    fail(`${definition.name}: unknown command "${command}". Commands:\n  ${'(none)'.padEnd(width)}  start the service\n${usage.join('\n')}`, 2);
  }
  try {
    await chosen.run(config, args);
    process.exit(0);
  } catch (error) {
    fail(`${definition.name} ${command} failed: ${(error as Error).message}`);
  }
}

async function replayDeadLettersCommand(service: string, config: BaseConfig, args: string[]): Promise<void> {
  const flag = args.indexOf('--consumer');
  const consumer = flag >= 0 ? args[flag + 1] : undefined;
  if (flag >= 0 && !consumer) throw new Error('--consumer needs a durable name, e.g. messaging__item-owners');
  const nats = new NatsClient({ url: config.NATS_URL, namespace: config.NATS_NAMESPACE, service: `${service}-replay` });
  const streams = new JetStreamStreams(nats, jetStreamSettingsOf(config));
  await nats.connect();
  try {
    const report = await replayDeadLetters(nats, streams, { service, consumer }, (line) => process.stdout.write(`${line}\n`));
    process.stdout.write(`${service}: replayed ${report.replayed} dead letter(s); ${report.notReplayable} not replayable\n`);
  } finally {
    await nats.onApplicationShutdown();
  }
}
