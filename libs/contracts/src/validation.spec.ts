import { z } from 'zod';
import { createItemBodySchema } from './items';
import { toValidationMap, unknownFieldsOf } from './validation';

describe('toValidationMap', () => {
  const schema = z.strictObject({
    name: z.string().trim().min(1).max(100),
    email: z.email(),
    password: z.string().min(8).max(128),
    reward: z.number().int().optional(),
  });

  it('names one broken rule per field in the contract vocabulary', () => {
    const input = { name: 'x'.repeat(101), email: 'nope', password: 'short', reward: 1.5 };
    const result = schema.safeParse(input);
    expect(result.success).toBe(false);
    expect(toValidationMap(result.error!, input)).toEqual({ name: 'max=100', email: 'email', password: 'min=8', reward: 'invalid' });
  });

  it('calls missing and blank fields required', () => {
    const input = { name: '   ', password: 'long enough' };
    const result = schema.safeParse(input);
    expect(toValidationMap(result.error!, input)).toEqual({ name: 'required', email: 'required' });
  });

  it('lists fields the schema does not know, so the gateway can refuse mass assignment', () => {
    const result = createItemBodySchema.safeParse({ name: 'Keys', user_id: 'someone', is_admin: true });
    expect(unknownFieldsOf(result.error!)).toEqual(['user_id', 'is_admin']);
    expect(unknownFieldsOf(createItemBodySchema.safeParse({ name: '' }).error!)).toBeNull();
  });
});
