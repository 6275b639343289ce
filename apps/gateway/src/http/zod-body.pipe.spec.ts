import { createItemBodySchema } from '@homing/contracts';
import { toHttpError } from './http-error';
import { ZodBodyPipe } from './zod-body.pipe';

const pipe = new ZodBodyPipe(createItemBodySchema);

function refusal(body: unknown) {
  try {
    pipe.transform(body);
  } catch (error) {
    return toHttpError(error);
  }
  throw new Error('accepted');
}

describe('ZodBodyPipe', () => {
  it('passes a valid body through, trimmed', () => {
    expect(pipe.transform({ name: '  Keys ' })).toEqual({ name: 'Keys' });
  });

  it('refuses unknown fields as malformed (400), so nobody can set what they should not', () => {
    expect(refusal({ name: 'Keys', user_id: 'x' })).toMatchObject({ status: 400, body: { response_code: 'MALFORMED_REQUEST' } });
  });

  it.each([null, [], 'Keys', 42])('refuses a body that is not an object (%p) as malformed', (body) => {
    expect(refusal(body)?.status).toBe(400);
  });

  it('answers bad values with 422 and the validation map', () => {
    expect(refusal({ name: 'x'.repeat(101) })).toEqual({
      status: 422,
      body: { response_code: 'VALIDATION_ERROR', message: 'Input data contains errors.', validation: { name: 'max=100' } },
    });
  });
});
