import { acceptDeadline, requestContext } from './request-context';

describe('acceptDeadline', () => {
  const now = 1_763_900_000_000;

  it('accepts an epoch-ms deadline within a minute of our clock, past or future', () => {
    expect(acceptDeadline(String(now + 2000), now)).toBe(now + 2000);
    expect(acceptDeadline(String(now - 500), now)).toBe(now - 500);
  });

  it.each([
    ['no header', undefined],
    ['an empty header', ''],
    ['not a number', 'soon'],
    ['a fraction', `${now}.5`],
    ['a negative number', `-${now}`],
    ['seconds instead of ms', String(Math.floor(now / 1000))],
    ['a deadline an hour ahead (skewed or forged)', String(now + 3_600_000)],
    ['a deadline an hour behind (skewed clock)', String(now - 3_600_000)],
    ['a huge number', '9'.repeat(40)],
  ])('ignores %s', (_, header) => {
    expect(acceptDeadline(header, now)).toBeUndefined();
  });
});

describe('requestContext.deadline', () => {
  it('is the deadline of the request being handled, and none outside one', () => {
    expect(requestContext.deadline()).toBeUndefined();
    expect(requestContext.run({ correlationId: 'c', causationId: null, deadline: 42 }, () => requestContext.deadline())).toBe(42);
  });
});
