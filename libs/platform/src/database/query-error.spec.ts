import { isDependencyUnavailable } from '../nats/rpc-error';
import { DatabaseQueryError, scrubQueryError } from './query-error';

function queryFailed(message: string, code: string): Error {
  // The shape of TypeORM's QueryFailedError: the driver's fields copied onto it, with the query and parameters.
  return Object.assign(new Error(message), {
    code,
    detail: 'Key (lower(email))=(someone@example.com) already exists.',
    query: 'INSERT INTO users …',
    parameters: ['someone@example.com', '$argon2id$…'],
    driverError: { code, detail: 'Key (lower(email))=(someone@example.com) already exists.' },
  });
}

describe('scrubQueryError', () => {
  it('keeps the message and SQLSTATE of a failed query, and nothing it carried', () => {
    const scrubbed = scrubQueryError(queryFailed('duplicate key value violates unique constraint "users_email_key"', '23505'));
    expect(scrubbed).toBeInstanceOf(DatabaseQueryError);
    expect(JSON.stringify({ ...(scrubbed as object), message: (scrubbed as Error).message, stack: (scrubbed as Error).stack })).not.toContain('someone@example.com');
    expect(scrubbed).toMatchObject({ message: 'duplicate key value violates unique constraint "users_email_key"', code: '23505' });
  });

  it('still lets the RPC server tell a database that is away (503) by its code', () => {
    expect(isDependencyUnavailable(scrubQueryError(queryFailed('terminating connection due to administrator command', '57P01')))).toBe(true);
  });

  it('leaves other errors alone', () => {
    const error = new TypeError('boom');
    expect(scrubQueryError(error)).toBe(error);
  });
});
