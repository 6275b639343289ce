import { requestContext } from '../context';
import { databaseMetrics } from '../metrics/metrics';
import { QueryCountingLogger } from './query-counter';

const countOf = async (work: string) => (await databaseMetrics.queries.get()).values.find((value) => value.labels.work === work)?.value ?? 0;

describe('QueryCountingLogger', () => {
  it('counts each statement against the RPC or consumer being handled, and the rest as background', async () => {
    const logger = new QueryCountingLogger();
    const before = { rpc: await countOf('messaging.rpc.list-messages'), background: await countOf('background') };
    await requestContext.run({ correlationId: 'c', causationId: null, work: 'messaging.rpc.list-messages' }, async () => {
      logger.logQuery();
      await Promise.resolve();
      logger.logQuery();
    });
    logger.logQuery();
    expect(await countOf('messaging.rpc.list-messages')).toBe(before.rpc + 2);
    expect(await countOf('background')).toBe(before.background + 1);
  });
});
