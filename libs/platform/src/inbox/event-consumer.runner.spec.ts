import { filterSubjectOf } from './event-consumer.runner';

describe('filterSubjectOf (one filter subject per consumer, as NATS 2.9 allows)', () => {
  it('filters on the subject of a single-subject consumer', () => {
    expect(filterSubjectOf(['items.item.created.v1'])).toBe('items.item.created.v1');
  });

  it('filters on the common prefix of several subjects', () => {
    expect(filterSubjectOf(['t1.items.item.created.v1', 't1.items.item.renamed.v1'])).toBe('t1.items.item.>');
    expect(filterSubjectOf(['items.item.created.v1', 'items.tag.minted.v1'])).toBe('items.>');
  });

  it('takes the whole stream when the subjects share no prefix', () => {
    expect(filterSubjectOf(['items.item.created.v1', 'messaging.message.created.v1'])).toBeUndefined();
  });
});
