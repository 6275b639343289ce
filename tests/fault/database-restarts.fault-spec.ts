import { reportFigure, sized } from './harness/figures';
import { FaultStack, SERVICES } from './harness/fault-stack';
import { privateInfraAvailable } from './harness/private-infra';
import { call, ownedTags, type RetryFigures } from './harness/product-client';

// F8 (../shared/RELIABILITY.md): PostgreSQL crashes (immediate stop, then crash recovery) and comes back, again and
// again, while tags are scanned and owners write. No service process may crash; calls fail fast with 503 (never
// 500, never hang) while it is away, and everything works again once it is back, without restarting anything.
const describeWithInfra = privateInfraAvailable() ? describe : describe.skip;

describeWithInfra('F8: PostgreSQL restarted with traffic in flight', () => {
  let stack: FaultStack;
  beforeAll(async () => {
    // Scans are the probe of PostgreSQL here: the gateway's scan cache would answer them without it.
    stack = await FaultStack.start({ env: { gateway: { SCAN_CACHE_MAX_ITEMS: '0' } } });
  });
  afterAll(() => stack?.stop());

  it('crashes no service and answers only 2xx or 503/504 meanwhile', async () => {
    const restarts = sized(2, 5);
    const figures: RetryFigures = { statuses: new Map() };
    const [tag] = await ownedTags(stack, 1, figures);
    const statuses = new Map<number, number>();
    let traffic = true;
    const scanning = (async () => {
      while (traffic) {
        const status = await call(stack, 'GET', `/items/${tag.code}`).then(
          (answer) => answer.status,
          () => 0,
        );
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
      }
    })();
    const recoveries: number[] = [];
    for (let restart = 0; restart < restarts; restart += 1) {
      await new Promise((resolveWait) => setTimeout(resolveWait, 1500));
      await stack.postgres.crash();
      await new Promise((resolveWait) => setTimeout(resolveWait, 1500));
      await stack.postgres.restart();
      const back = Date.now();
      // Recovered: a scan answers 200 again.
      for (;;) {
        if ((await call(stack, 'GET', `/items/${tag.code}`).catch(() => ({ status: 0 }))).status === 200) break;
        await new Promise((resolveWait) => setTimeout(resolveWait, 100));
      }
      recoveries.push(Date.now() - back);
    }
    traffic = false;
    await scanning;
    for (const service of SERVICES) await stack.waitReady(service);
    const crashes = stack.crashes();
    const unexpected = [...statuses.keys()].filter((status) => status !== 200 && status !== 503 && status !== 504);
    reportFigure({
      id: 'F8',
      test: `PostgreSQL crashed and restarted ${restarts}× during scans`,
      figure: `service crashes ${crashes.length}; answers ${[...statuses.entries()].map(([status, count]) => `${status}×${count}`).join(', ')}; recovery ${recoveries.map((ms) => `${ms} ms`).join(', ')}`,
      size: `${restarts} restarts`,
      passed: crashes.length === 0 && unexpected.length === 0,
    });
    expect(crashes).toEqual([]);
    expect(unexpected).toEqual([]);
  });
});
