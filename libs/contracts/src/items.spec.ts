import { ownedItemsQuerySchema, updateItemBodySchema } from './items';
import { toValidationMap } from './validation';

describe('ownedItemsQuerySchema', () => {
  const page = (query: Record<string, unknown>) => ownedItemsQuerySchema.parse(query);

  it('defaults to the first 50, also for the spec client’s limit=0', () => {
    expect(page({})).toEqual({ limit: 50, offset: 0 });
    expect(page({ limit: '0', offset: '0' })).toEqual({ limit: 50, offset: 0 });
  });

  it('caps the limit at 100 instead of refusing a larger one', () => {
    expect(page({ limit: '100', offset: '200' })).toEqual({ limit: 100, offset: 200 });
    expect(page({ limit: '999999' })).toEqual({ limit: 100, offset: 0 });
  });

  it.each([['-1'], ['1.5'], ['1e3'], [' 5'], [''], [['1', '2']]])('refuses limit %j', (limit) => {
    const result = ownedItemsQuerySchema.safeParse({ limit });
    expect(result.success).toBe(false);
    if (!result.success) expect(toValidationMap(result.error, { limit })).toEqual({ limit: 'invalid' });
  });
});

describe('updateItemBodySchema', () => {
  it('takes either field alone and trims the name', () => {
    expect(updateItemBodySchema.parse({ name: ' Keys ' })).toEqual({ name: 'Keys' });
    expect(updateItemBodySchema.parse({ reward: 0 })).toEqual({ reward: 0 });
  });

  it.each([
    [{ name: '' }, { name: 'required' }],
    [{ name: 'x'.repeat(101) }, { name: 'max=100' }],
    [{ reward: -1 }, { reward: 'min=0' }],
    [{ reward: 0.5 }, { reward: 'invalid' }],
    [{ reward: 10_000_001 }, { reward: 'max=10000000' }],
  ])('refuses %j', (body, validation) => {
    const result = updateItemBodySchema.safeParse(body);
    expect(result.success).toBe(false);
    if (!result.success) expect(toValidationMap(result.error, body)).toEqual(validation);
  });
});
