import { isTransientFailure } from '@homing/platform';
import { QueueUnavailableError } from './queue.repository';

describe('the email queue while Redis is away', () => {
  it('fails an enqueue as a dependency failure, which the event consumer retries without end', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6379'), { code: 'ECONNREFUSED' });
    expect(isTransientFailure(new QueueUnavailableError('email', refused))).toBe(true);
    expect(isTransientFailure(new Error('template missing'))).toBe(false);
  });
});
