import { randomUUID } from 'node:crypto';
import { Database } from '@homing/platform';
import { dropSchemas, ensureDatabase, isolatedName, runServiceCommand, testInfra } from '@homing/testing';
import { DeliveriesRepository, type DeliveryAttempt } from '../src/channels/deliveries.repository';

// The delivery row's claim against real PostgreSQL: what each run of one job may do, with runs side by side.
describe('notifications: claims on delivery rows', () => {
  const infra = testInfra();
  const schema = `notifications_${isolatedName()}`;
  let database: Database;
  let deliveries: DeliveriesRepository;

  beforeAll(async () => {
    await ensureDatabase(infra.databaseUrl);
    await runServiceCommand('notifications', ['migrate'], { NODE_ENV: 'test', LOG_LEVEL: 'warn', DATABASE_URL: infra.databaseUrl, DATABASE_SCHEMA: schema });
    database = new Database({ url: infra.databaseUrl, schema, applicationName: 'delivery-claims-test', migrations: [], poolSize: 4 });
    deliveries = new DeliveriesRepository(database);
  });

  afterAll(async () => {
    await database?.onApplicationShutdown();
    await dropSchemas(infra.databaseUrl, [schema]);
  });

  /** A run of the job `jobId`: its own claim token. */
  const run = (jobId: string, attempts = 1): DeliveryAttempt => ({ jobId, channel: 'email', kind: 'login-code', attempts, claimToken: randomUUID() });
  const rowOf = (jobId: string) =>
    database.one<{ status: string; attempts: number; held: boolean }>('SELECT status, attempts, claimed_until > now() AS held FROM deliveries WHERE job_id = $1', [jobId]);

  it('lets one of many runs at once claim a job, and the others wait until its claim ends', async () => {
    const jobId = `email_${randomUUID()}_${randomUUID()}`;
    const claims = await Promise.all(Array.from({ length: 8 }, (_, index) => deliveries.claim(run(jobId, index + 1), 60)));
    expect(claims.filter((claim) => claim.outcome === 'claimed')).toHaveLength(1);
    const held = claims.filter((claim) => claim.outcome === 'held-elsewhere');
    expect(held).toHaveLength(7);
    for (const claim of held) {
      if (claim.outcome !== 'held-elsewhere') continue;
      // About a minute from now, as claimed.
      expect(claim.until.getTime() - Date.now()).toBeGreaterThan(50_000);
      expect(DeliveriesRepository.retryAfter(claim)).toBeGreaterThan(claim.until.getTime());
    }
    expect(await rowOf(jobId)).toMatchObject({ status: 'sending', held: true });
  });

  it('answers sent-before once the claiming run recorded it sent, and the claim ends with it', async () => {
    const jobId = `email_${randomUUID()}_${randomUUID()}`;
    const first = run(jobId);
    expect(await deliveries.claim(first, 60)).toEqual({ outcome: 'claimed' });
    await deliveries.markSent(first);
    expect(await rowOf(jobId)).toEqual({ status: 'sent', attempts: 1, held: null });
    expect(await deliveries.claim(run(jobId, 2), 60)).toEqual({ outcome: 'sent-before' });
    expect(await rowOf(jobId)).toEqual({ status: 'sent', attempts: 1, held: null });
  });

  it('lets the next run claim at once after a release or a temporary failure, but not after another run’s', async () => {
    const jobId = `email_${randomUUID()}_${randomUUID()}`;
    const first = run(jobId);
    expect(await deliveries.claim(first, 60)).toEqual({ outcome: 'claimed' });
    // Another run's release or outcome leaves this run's claim in place.
    const other = run(jobId);
    await deliveries.release(other);
    await deliveries.markFailed(other, 'try later', false);
    expect((await deliveries.claim(run(jobId), 60)).outcome).toBe('held-elsewhere');
    // The claiming run's temporary failure ends it: the retry claims.
    await deliveries.markFailed(first, '451 try again later', false);
    const second = run(jobId, 2);
    expect(await deliveries.claim(second, 60)).toEqual({ outcome: 'claimed' });
    await deliveries.release(second);
    expect(await rowOf(jobId)).toEqual({ status: 'sending', attempts: 2, held: null });
    expect(await deliveries.claim(run(jobId, 3), 60)).toEqual({ outcome: 'claimed' });
  });

  it('lets a claim that lapsed (its run died) be taken by the next run', async () => {
    const jobId = `email_${randomUUID()}_${randomUUID()}`;
    expect(await deliveries.claim(run(jobId), 60)).toEqual({ outcome: 'claimed' });
    // As if a minute had passed since the killed run claimed it.
    await database.affected("UPDATE deliveries SET claimed_until = now() - interval '1 second' WHERE job_id = $1", [jobId]);
    expect(await deliveries.claim(run(jobId, 2), 60)).toEqual({ outcome: 'claimed' });
    expect(await rowOf(jobId)).toEqual({ status: 'sending', attempts: 2, held: true });
  });

  it('forgets the row a run claimed when there is nobody to write to, but never another run’s or a sent one', async () => {
    const jobId = `email_${randomUUID()}_${randomUUID()}`;
    const first = run(jobId);
    await deliveries.claim(first, 60);
    await deliveries.forget(run(jobId));
    expect(await rowOf(jobId)).toMatchObject({ status: 'sending', held: true });
    await deliveries.forget(first);
    expect(await rowOf(jobId)).toBeUndefined();
    expect(await deliveries.wasSent(jobId)).toBe(false);

    const sent = run(jobId, 2);
    await deliveries.claim(sent, 60);
    await deliveries.markSent(sent);
    await deliveries.forget(sent);
    expect(await rowOf(jobId)).toMatchObject({ status: 'sent' });
    expect(await deliveries.wasSent(jobId)).toBe(true);
  });

  it('takes a skipped or permanently failed row for a run that decides afresh, as before claims', async () => {
    for (const end of ['skipped', 'failed'] as const) {
      const jobId = `email_${randomUUID()}_${randomUUID()}`;
      const first = run(jobId);
      await deliveries.claim(first, 60);
      if (end === 'skipped') await deliveries.markSkipped(first, 'read before the e-mail was due');
      else await deliveries.markFailed(first, '550 no such mailbox', true);
      expect(await rowOf(jobId)).toMatchObject({ status: end, held: null });
      expect(await deliveries.claim(run(jobId, 2), 60)).toEqual({ outcome: 'claimed' });
    }
  });

  it('records no outcome on a row an erasure deleted while the run was sending, and makes none', async () => {
    const recipient = randomUUID();
    for (const outcome of ['sent', 'skipped', 'failed', 'failed for now'] as const) {
      const jobId = `email_${randomUUID()}_${recipient}`;
      const running = run(jobId);
      expect(await deliveries.claim(running, 60)).toEqual({ outcome: 'claimed' });
      expect(await deliveries.deleteAllTo([recipient])).toBe(1);
      if (outcome === 'sent') await deliveries.markSent(running);
      else if (outcome === 'skipped') await deliveries.markSkipped(running, 'read before the e-mail was due');
      else await deliveries.markFailed(running, '550 no such mailbox', outcome === 'failed');
      await deliveries.release(running);
      expect(await rowOf(jobId)).toBeUndefined();
    }
  });
});
