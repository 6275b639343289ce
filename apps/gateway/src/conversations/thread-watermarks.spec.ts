import { ThreadWatermarks } from './thread-watermarks';

const CONVERSATION_A = '0190a000-0000-7000-8000-00000000000a';
const CONVERSATION_B = '0190a000-0000-7000-8000-00000000000b';

describe('ThreadWatermarks', () => {
  it('knows nothing of an item it saw no event about, so such polls go to messaging', () => {
    const watermarks = new ThreadWatermarks();
    expect(watermarks.knows('ITEM')).toBe(false);
    expect(watermarks.isNothingAfter('ITEM', null, 1_000_000)).toBe(false);
  });

  it('says nothing is new for the owner at or past the newest message of the item, whatever order events came in', () => {
    const watermarks = new ThreadWatermarks();
    watermarks.messageCreated('ITEM', CONVERSATION_A, 12);
    watermarks.messageCreated('ITEM', CONVERSATION_B, 10);
    expect(watermarks.isNothingAfter('ITEM', null, 12)).toBe(true);
    expect(watermarks.isNothingAfter('ITEM', null, 11)).toBe(false);
  });

  it('bounds a finder by their own conversation, or by the item when none of its events was seen', () => {
    const watermarks = new ThreadWatermarks();
    watermarks.messageCreated('ITEM', CONVERSATION_A, 7);
    watermarks.messageCreated('ITEM', CONVERSATION_B, 9);
    expect(watermarks.isNothingAfter('ITEM', CONVERSATION_A, 7)).toBe(true);
    expect(watermarks.isNothingAfter('ITEM', CONVERSATION_A, 6)).toBe(false);
    expect(watermarks.isNothingAfter('ITEM', '0190a000-0000-7000-8000-00000000000c', 8)).toBe(false);
    expect(watermarks.isNothingAfter('ITEM', '0190a000-0000-7000-8000-00000000000c', 9)).toBe(true);
  });

  it('after a reset, holds the reset’s version and no conversation', () => {
    const watermarks = new ThreadWatermarks();
    watermarks.messageCreated('ITEM', CONVERSATION_A, 7);
    watermarks.conversationsCleared('ITEM', 8);
    expect(watermarks.isNothingAfter('ITEM', CONVERSATION_A, 7)).toBe(false);
    expect(watermarks.isNothingAfter('ITEM', null, 8)).toBe(true);
    watermarks.messageCreated('ITEM', CONVERSATION_B, 9);
    expect(watermarks.isNothingAfter('ITEM', null, 8)).toBe(false);
  });

  it('forgets a deleted item, everything after a reconnect, and the least recently changed item past its size', () => {
    const watermarks = new ThreadWatermarks(2);
    watermarks.messageCreated('ONE', CONVERSATION_A, 1);
    watermarks.messageCreated('TWO', CONVERSATION_A, 2);
    watermarks.messageCreated('ONE', CONVERSATION_A, 3);
    watermarks.messageCreated('THREE', CONVERSATION_A, 4);
    expect([watermarks.knows('ONE'), watermarks.knows('TWO'), watermarks.knows('THREE')]).toEqual([true, false, true]);
    watermarks.forget('ONE');
    expect(watermarks.knows('ONE')).toBe(false);
    watermarks.forgetAll();
    expect(watermarks.size).toBe(0);
  });
});
