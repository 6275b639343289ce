import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy, type Provider } from '@nestjs/common';
import { z } from 'zod';
import { SERVICE_CONFIG } from '../config/inject-config';
import { Database, withDatabase } from '../database/database';
import type { DatabaseOptions } from '../database/database.options';
import { retentionMetrics } from '../metrics/metrics';

/** One kind of personal data a service stops keeping once it is past its limit. */
export interface RetentionRule {
  /** Stable, in logs and as the metric label, e.g. `sessions-past-lifetime`. */
  name: string;
  /** Deletes (or clears) what is past its limit as of `now`; returns how many rows it changed. */
  purge(now: Date): Promise<number>;
}

/** A service's rules, built from its config and database, the same for the timer and for `purge-expired`. */
export type RetentionRules<C> = (database: Database, config: C) => RetentionRule[];

export const retentionEnvSchema = z.object({
  /** How often every replica runs the service's retention rules; the deletes are idempotent, so replicas may overlap. */
  RETENTION_INTERVAL_MINUTES: z.coerce.number().min(0.05).max(24 * 60).default(60),
  /** Rows one retention statement deletes at most: a large backlog goes in many short transactions, not one long one. */
  RETENTION_BATCH_SIZE: z.coerce.number().int().min(1).max(100_000).default(1000),
});
export type RetentionConfig = z.infer<typeof retentionEnvSchema>;

export interface BatchedDelete {
  table: string;
  /** The condition of the rows to delete; its parameters are `$1…$n` of `parameters`. */
  where: string;
  parameters: readonly unknown[];
  batchSize: number;
}

/**
 * Deletes every row matching `where`, at most `batchSize` per statement (each its own transaction), until a
 * statement finds fewer: a year's backlog never holds locks for long. Returns how many rows went.
 */
export async function deleteInBatches(database: Database, { table, where, parameters, batchSize }: BatchedDelete): Promise<number> {
  const limit = `$${parameters.length + 1}`;
  const sql = `DELETE FROM ${table} WHERE ctid IN (SELECT ctid FROM ${table} WHERE ${where} LIMIT ${limit})`;
  let total = 0;
  for (;;) {
    const deleted = await database.affected(sql, [...parameters, batchSize]);
    total += deleted;
    if (deleted < batchSize) return total;
  }
}

export interface RuleOutcome {
  name: string;
  purged: number;
  /** The error's message when the rule failed; the other rules still ran. */
  error?: string;
}

/** A rule's outcome as a log line: its name and count (or why it failed), never what it deleted. */
export function describeOutcome(outcome: RuleOutcome): string {
  return outcome.error === undefined ? `retention ${outcome.name}: purged ${outcome.purged}` : `retention ${outcome.name} failed: ${outcome.error}`;
}

/**
 * Runs every rule once as of `now`, one after the other; a failing rule is reported and does not stop the rest.
 * Reports each outcome as it comes, and counts `homing_retention_purged_total{rule}`.
 */
export async function runRetentionRules(rules: readonly RetentionRule[], now: Date, report: (outcome: RuleOutcome) => void): Promise<RuleOutcome[]> {
  const outcomes: RuleOutcome[] = [];
  for (const rule of rules) {
    try {
      const purged = await rule.purge(now);
      retentionMetrics.purged.inc({ rule: rule.name }, purged);
      outcomes.push({ name: rule.name, purged });
    } catch (error) {
      outcomes.push({ name: rule.name, purged: 0, error: (error as Error).message });
    }
    report(outcomes[outcomes.length - 1]);
  }
  return outcomes;
}

export const RETENTION_RULES = Symbol('RETENTION_RULES');

/**
 * The first pass comes 5–15 s after the start, not with it: off the start path (B8), and the replicas of a rollout do
 * not all purge at the same moment.
 */
const FIRST_PASS_AFTER_MS = { min: 5000, spread: 10_000 };

/** Runs the service's retention rules every `RETENTION_INTERVAL_MINUTES`, first shortly after the service has started. */
@Injectable()
export class RetentionRunner implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('Retention');
  private timer?: NodeJS.Timeout;
  private firstPass?: NodeJS.Timeout;
  private running?: Promise<unknown>;

  constructor(
    @Inject(RETENTION_RULES) private readonly rules: RetentionRule[],
    @Inject(SERVICE_CONFIG) private readonly config: RetentionConfig,
  ) {}

  onApplicationBootstrap(): void {
    const everyMs = this.config.RETENTION_INTERVAL_MINUTES * 60_000;
    this.timer = setInterval(() => void this.runOnce(), everyMs).unref();
    const firstAfterMs = Math.min(everyMs, FIRST_PASS_AFTER_MS.min + Math.random() * FIRST_PASS_AFTER_MS.spread);
    this.firstPass = setTimeout(() => void this.runOnce(), firstAfterMs).unref();
  }

  async onModuleDestroy(): Promise<void> {
    clearInterval(this.timer);
    clearTimeout(this.firstPass);
    // A batch in flight finishes before the database closes under it.
    await this.running;
  }

  /** One pass over every rule as of now; skipped while the previous pass still runs. */
  runOnce(now = new Date()): Promise<unknown> {
    if (this.running) return this.running;
    // Every replica runs every rule each interval: a pass with nothing to purge is not worth a line at info.
    const report = (outcome: RuleOutcome) => {
      if (outcome.error !== undefined) this.logger.warn(describeOutcome(outcome));
      else if (outcome.purged > 0) this.logger.log(describeOutcome(outcome));
      else this.logger.debug(describeOutcome(outcome));
    };
    this.running = runRetentionRules(this.rules, now, report).finally(() => (this.running = undefined));
    return this.running;
  }
}

/** Providers that run `rules` on a timer; put them in the service's AppModule (needs the platform's Database). */
export function retentionProviders<C>(rules: RetentionRules<C>): Provider[] {
  return [
    { provide: RETENTION_RULES, useFactory: (database: Database, config: C) => rules(database, config), inject: [Database, SERVICE_CONFIG] },
    RetentionRunner,
  ];
}

/** The `--now <ISO time>` of `purge-expired`, or the current time. */
export function purgeClock(args: string[], current = new Date()): Date {
  const flag = args.indexOf('--now');
  if (flag < 0) return current;
  const value = args[flag + 1];
  const now = value ? new Date(value) : new Date(Number.NaN);
  if (!value || !/^\d{4}-\d{2}-\d{2}/.test(value) || Number.isNaN(now.getTime())) throw new Error('--now needs an ISO time, e.g. 2026-01-31T12:00:00Z');
  return now;
}

/** `main.js purge-expired [--now <ISO time>]`: every rule once, with that clock; fails when a rule failed. */
export async function purgeExpired<C>(service: string, options: DatabaseOptions, config: C, rules: RetentionRules<C>, args: string[]): Promise<void> {
  const now = purgeClock(args);
  const print = (outcome: RuleOutcome) => process.stdout.write(`${service}: ${describeOutcome(outcome)}\n`);
  const outcomes = await withDatabase(options, (database) => runRetentionRules(rules(database, config), now, print));
  const failed = outcomes.filter((outcome) => outcome.error !== undefined);
  if (failed.length > 0) throw new Error(`retention rule(s) failed: ${failed.map((outcome) => outcome.name).join(', ')}`);
}
