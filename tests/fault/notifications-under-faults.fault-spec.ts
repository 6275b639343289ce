import { reportFigure, sized } from './harness/figures';
import { FaultStack } from './harness/fault-stack';
import { privateInfraAvailable } from './harness/private-infra';
import { ownedTags, type RetryFigures } from './harness/product-client';
import { expectEventually } from '@homing/testing';
import { ACCEPTED_NEAR_KILL_MS, mailCounts } from './harness/measures';

// F2 and F5 (../shared/RELIABILITY.md): every activation sends its owner two e-mails (welcome, "your tag is
// active"), from two events, through BullMQ. With notifications SIGKILLed again and again (F2), or Redis killed
// with jobs queued (F5, AOF on), every e-mail must arrive exactly once, but for one case no sender can avoid: a mail
// the SMTP server accepted at the moment of the kill, before its delivery row could say so (F2 reports those
// apart; they are sent again with the same Message-ID).
const describeWithInfra = privateInfraAvailable() ? describe : describe.skip;

describeWithInfra('F2: notifications SIGKILLed while events arrive', () => {
  let stack: FaultStack;
  beforeAll(async () => {
    // Stalled jobs are picked up again after the lock expires (15 s by default, RELIABILITY's settings) and the killed
    // run's claim on its delivery lapses (90 s by default): 5 s each here, so the test waits seconds for them; what it
    // counts (lost, duplicated) does not depend on the lengths.
    stack = await FaultStack.start({ env: { notifications: { JOB_LOCK_SECONDS: '5', DELIVERY_CLAIM_SECONDS: '5' } } });
  });
  afterAll(() => stack?.stop());

  it('sends every e-mail once', async () => {
    const owners = sized(20, 200);
    const kills = sized(2, 5);
    const figures: RetryFigures = { statuses: new Map() };
    const killedAt: number[] = [];
    const killer = (async () => {
      for (let kill = 0; kill < kills; kill += 1) {
        await new Promise((resolveWait) => setTimeout(resolveWait, 1500));
        killedAt.push(Date.now());
        await stack.service('notifications').kill('SIGKILL');
      }
    })();
    const activated = await ownedTags(stack, owners, figures);
    await killer;
    await stack.waitReady('notifications');
    const { lost, duplicated, resentAfterKill } = await mailCounts(stack, activated, 2, undefined, killedAt);
    const crashes = stack.crashes();
    reportFigure({
      id: 'F2',
      test: `notifications SIGKILLed ${kills}× during activations (welcome + tag-active e-mails)`,
      figure: `e-mails lost ${lost} of ${owners * 2}; duplicated ${duplicated}; accepted by SMTP within ${ACCEPTED_NEAR_KILL_MS} ms of a kill and resent with the same Message-ID ${resentAfterKill}`,
      size: `${owners} activations, ${kills} kills`,
      passed: lost === 0 && duplicated === 0 && crashes.length === 0,
    });
    expect({ lost, duplicated }).toEqual({ lost: 0, duplicated: 0 });
    expect(crashes).toEqual([]);
  });
});

describeWithInfra('F5: Redis killed with jobs queued (AOF)', () => {
  let stack: FaultStack;
  beforeAll(async () => {
    stack = await FaultStack.start();
  });
  afterAll(() => stack?.stop());

  it('loses no job and sends nothing twice', async () => {
    const owners = sized(20, 200);
    const figures: RetryFigures = { statuses: new Map() };
    // The SMTP server keeps every sender waiting: jobs pile up active and waiting in Redis.
    stack.mail.holdNext(owners * 4);
    const activated = await ownedTags(stack, owners, figures);
    await expectEventually(() => expect(stack.mail.heldCount).toBeGreaterThan(0), { timeoutMs: 30_000 });
    await stack.redis.process.kill('SIGKILL');
    await new Promise((resolveWait) => setTimeout(resolveWait, 1000));
    await stack.redis.restart();
    // The held sends belonged to jobs whose locks died with the old Redis connection; answering them now is the
    // worst case: a send completes after its job may already be running again elsewhere.
    stack.mail.releaseAll();
    const { lost, duplicated } = await mailCounts(stack, activated, 2);
    const crashes = stack.crashes();
    reportFigure({
      id: 'F5',
      test: 'redis-server (AOF) SIGKILLed with e-mail jobs queued and in flight',
      figure: `jobs lost ${lost} of ${owners * 2}; duplicate sends ${duplicated}`,
      size: `${owners} activations`,
      passed: lost === 0 && duplicated === 0 && crashes.length === 0,
    });
    expect({ lost, duplicated }).toEqual({ lost: 0, duplicated: 0 });
    expect(crashes).toEqual([]);
  });
});
