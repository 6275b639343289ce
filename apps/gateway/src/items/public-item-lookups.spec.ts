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

  it('holds the scans that arrive while a batch is out, and sends them together once it is answered', async () => {
    const asked: string[][] = [];
    const answers: Array<() => void> = [];
    const lookups = new PublicItemLookups((codes) => {
      asked.push(codes);
      return new Promise((resolve) => answers.push(() => resolve(codes.map(record))));
    }, 100, 60_000);
    const first = lookups.lookUp('K1');
    await nextTurn();
    expect(asked).toEqual([['K1']]);
    const later = [lookups.lookUp('K2'), lookups.lookUp('K3')];
    await nextTurn();
    await nextTurn();
    lookups.lookUp('K4').catch(() => undefined);
    expect(asked).toEqual([['K1']]);
    answers[0]();
    expect(await first).toEqual(record('K1'));
    await nextTurn();
    expect(asked).toEqual([['K1'], ['K2', 'K3', 'K4']]);
    answers[1]();
    expect(await Promise.all(later)).toEqual([record('K2'), record('K3')]);
  });

  it('holds them no longer than the hold, however long the batch out takes (an items replica that died with it)', async () => {
    const asked: string[][] = [];
    const lookups = new PublicItemLookups(async (codes) => {
      asked.push(codes);
      if (codes.includes('K1')) return new Promise<never>(() => undefined);
      return codes.map(record);
    }, 100, 5);
    void lookups.lookUp('K1');
    await nextTurn();
    const held = lookups.lookUp('K2');
    await nextTurn();
    expect(asked).toEqual([['K1']]);
    expect(await held).toEqual(record('K2'));
    expect(asked).toEqual([['K1'], ['K2']]);
  });

  it('sends a lone scan at the end of the turn, with no batch out to wait for', async () => {
    const { ask, asked } = items();
    const lookups = new PublicItemLookups(ask, 100, 60_000);
    expect(await lookups.lookUp('K1')).toEqual(record('K1'));
    expect(await lookups.lookUp('K2')).toEqual(record('K2'));
    expect(asked).toEqual([['K1'], ['K2']]);
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
