import type { PublicItem } from '@homing/contracts';
import type { PublicItemRecord } from './public-item-cache';
import { PublicItemLookups } from './public-item-lookups';

const record = (code: string): PublicItemRecord => ({ item: { code } as PublicItem, ownerUserId: null });
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

/** Items as a fake that knows the codes starting with K, and records what it was asked. */
function items() {
  const asked: string[][] = [];
  const ask = jest.fn(async (codes: string[]) => {
    asked.push(codes);
    return codes.map((code) => (code.startsWith('K') ? record(code) : null));
  });
  return { ask, asked };
}

describe('PublicItemLookups', () => {
  it('asks once for the codes looked up in one turn, and gives each its own record or null', async () => {
    const { ask, asked } = items();
    const lookups = new PublicItemLookups(ask);
    const answers = Promise.all(['K1', 'X2', 'K3'].map((code) => lookups.lookUp(code)));
    expect(ask).not.toHaveBeenCalled();
    expect(await answers).toEqual([record('K1'), null, record('K3')]);
    expect(asked).toEqual([['K1', 'X2', 'K3']]);
  });

  it('asks again for codes looked up in a later turn', async () => {
    const { ask, asked } = items();
    const lookups = new PublicItemLookups(ask);
    const first = lookups.lookUp('K1');
    await nextTurn();
    const second = lookups.lookUp('K2');
    expect(await Promise.all([first, second])).toEqual([record('K1'), record('K2')]);
    expect(asked).toEqual([['K1'], ['K2']]);
  });

  it('sends a full batch at once and the rest at the end of the turn', async () => {
    const { ask, asked } = items();
    const lookups = new PublicItemLookups(ask, 2);
    const answers = Promise.all(['K1', 'K2', 'K3', 'K4', 'K5'].map((code) => lookups.lookUp(code)));
    expect(asked).toEqual([['K1', 'K2'], ['K3', 'K4']]);
    expect(await answers).toHaveLength(5);
    expect(asked).toEqual([['K1', 'K2'], ['K3', 'K4'], ['K5']]);
  });

  it('fails every lookup of a batch whose request failed, and asks anew afterwards', async () => {
    const unavailable = new Error('items is unavailable');
    const ask = jest.fn<Promise<(PublicItemRecord | null)[]>, [string[]]>().mockRejectedValueOnce(unavailable);
    ask.mockImplementation(async (codes) => codes.map(record));
    const lookups = new PublicItemLookups(ask);
    const failed = await Promise.allSettled([lookups.lookUp('K1'), lookups.lookUp('K2')]);
    expect(failed).toEqual([
      { status: 'rejected', reason: unavailable },
      { status: 'rejected', reason: unavailable },
    ]);
    expect(await lookups.lookUp('K1')).toEqual(record('K1'));
  });

  it('fails a batch whose answer has another length, rather than take a missing record for an unknown code', async () => {
    const lookups = new PublicItemLookups(async () => [record('K1')]);
    const answers = await Promise.allSettled([lookups.lookUp('K1'), lookups.lookUp('K2')]);
    expect(answers.map((answer) => answer.status)).toEqual(['rejected', 'rejected']);
  });

  it('fails the batch, not the caller, when asking throws at once', async () => {
    const lookups = new PublicItemLookups(() => {
      throw new Error('not connected');
    });
    await expect(lookups.lookUp('K1')).rejects.toThrow('not connected');
  });
});
