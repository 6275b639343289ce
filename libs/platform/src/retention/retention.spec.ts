import { Logger } from '@nestjs/common';
import type { Database } from '../database/database';
import { metricsRegistry } from '../metrics/metrics';
import { deleteInBatches, describeOutcome, purgeClock, RetentionRunner, runRetentionRules, type RetentionRule } from './retention';

async function purgedCount(rule: string): Promise<number> {
  const metric = await metricsRegistry.getSingleMetric('homing_retention_purged_total')?.get();
  return metric?.values.find((value) => value.labels.rule === rule)?.value ?? 0;
}

beforeAll(() => Logger.overrideLogger(false));

describe('runRetentionRules', () => {
  it('runs every rule with the given clock, logs names and counts only, and counts what each purged', async () => {
    const now = new Date('2030-01-01T00:00:00Z');
    const seen: Date[] = [];
    const rules: RetentionRule[] = [
      { name: 'spec-old-rows', purge: async (at) => (seen.push(at), 3) },
      { name: 'spec-nothing', purge: async (at) => (seen.push(at), 0) },
    ];
    const lines: string[] = [];
    const before = await purgedCount('spec-old-rows');

    const outcomes = await runRetentionRules(rules, now, (outcome) => lines.push(describeOutcome(outcome)));

    expect(outcomes).toEqual([
      { name: 'spec-old-rows', purged: 3 },
      { name: 'spec-nothing', purged: 0 },
    ]);
    expect(seen).toEqual([now, now]);
    expect(lines).toEqual(['retention spec-old-rows: purged 3', 'retention spec-nothing: purged 0']);
    expect((await purgedCount('spec-old-rows')) - before).toBe(3);
  });

  it('reports a failing rule and still runs the ones after it', async () => {
    const after = jest.fn(async () => 1);
    const outcomes = await runRetentionRules(
      [
        { name: 'spec-broken', purge: () => Promise.reject(new Error('relation "gone" does not exist')) },
        { name: 'spec-after', purge: after },
      ],
      new Date(),
      () => undefined,
    );
    expect(outcomes).toEqual([
      { name: 'spec-broken', purged: 0, error: 'relation "gone" does not exist' },
      { name: 'spec-after', purged: 1 },
    ]);
    expect(after).toHaveBeenCalled();
    expect(describeOutcome(outcomes[0])).toBe('retention spec-broken failed: relation "gone" does not exist');
  });
});

describe('deleteInBatches', () => {
  it('deletes at most a batch per statement until a statement finds fewer, and sums the counts', async () => {
    const answers = [2, 2, 1];
    const affected = jest.fn(async () => answers.shift() ?? 0);
    const database = { affected } as unknown as Database;

    const total = await deleteInBatches(database, { table: 'sessions', where: 'created_at < $1', parameters: ['2030-01-01'], batchSize: 2 });

    expect(total).toBe(5);
    expect(affected).toHaveBeenCalledTimes(3);
    expect(affected).toHaveBeenCalledWith('DELETE FROM sessions WHERE ctid IN (SELECT ctid FROM sessions WHERE created_at < $1 LIMIT $2)', ['2030-01-01', 2]);
  });

  it('stops after one statement when nothing is past its limit', async () => {
    const affected = jest.fn(async () => 0);
    expect(await deleteInBatches({ affected } as unknown as Database, { table: 't', where: 'true', parameters: [], batchSize: 100 })).toBe(0);
    expect(affected).toHaveBeenCalledTimes(1);
  });
});

describe('RetentionRunner', () => {
  afterEach(() => jest.useRealTimers());

  it('runs the rules 5–15 s after the start and then every RETENTION_INTERVAL_MINUTES, and stops on shutdown', async () => {
    jest.useFakeTimers();
    const purge = jest.fn(async () => 0);
    const runner = new RetentionRunner([{ name: 'spec-timer', purge }], { RETENTION_INTERVAL_MINUTES: 60, RETENTION_BATCH_SIZE: 1000 });

    runner.onApplicationBootstrap();
    await jest.advanceTimersByTimeAsync(4999);
    expect(purge).not.toHaveBeenCalled();
    await jest.advanceTimersByTimeAsync(10_001);
    expect(purge).toHaveBeenCalledTimes(1);
    await jest.advanceTimersByTimeAsync(59 * 60_000 - 15_000);
    expect(purge).toHaveBeenCalledTimes(1);
    await jest.advanceTimersByTimeAsync(60_000);
    expect(purge).toHaveBeenCalledTimes(2);

    await runner.onModuleDestroy();
    await jest.advanceTimersByTimeAsync(120 * 60_000);
    expect(purge).toHaveBeenCalledTimes(2);
  });

  it('makes no first pass when stopped before it', async () => {
    jest.useFakeTimers();
    const purge = jest.fn(async () => 0);
    const runner = new RetentionRunner([{ name: 'spec-early-stop', purge }], { RETENTION_INTERVAL_MINUTES: 60, RETENTION_BATCH_SIZE: 1000 });

    runner.onApplicationBootstrap();
    await runner.onModuleDestroy();
    await jest.advanceTimersByTimeAsync(120 * 60_000);
    expect(purge).not.toHaveBeenCalled();
  });

  it('does not start a second pass while one is still running', async () => {
    let finish!: () => void;
    const purge = jest.fn(async () => 0);
    purge.mockImplementationOnce(() => new Promise<number>((resolve) => (finish = () => resolve(0))));
    const runner = new RetentionRunner([{ name: 'spec-slow', purge }], { RETENTION_INTERVAL_MINUTES: 60, RETENTION_BATCH_SIZE: 1000 });

    const first = runner.runOnce();
    const second = runner.runOnce();
    expect(purge).toHaveBeenCalledTimes(1);
    finish();
    await Promise.all([first, second]);
    await runner.runOnce();
    expect(purge).toHaveBeenCalledTimes(2);
  });
});

describe('purgeClock', () => {
  it('takes --now as an ISO time, else the current time', () => {
    const current = new Date('2026-11-25T10:00:00Z');
    expect(purgeClock([], current)).toBe(current);
    expect(purgeClock(['--now', '2027-01-01T00:00:00Z'], current)).toEqual(new Date('2027-01-01T00:00:00Z'));
  });

  it.each([[['--now']], [['--now', 'tomorrow']], [['--now', '2027-13-45']]])('refuses %j with a message an operator can act on', (args) => {
    expect(() => purgeClock(args)).toThrow('--now needs an ISO time');
  });
});
