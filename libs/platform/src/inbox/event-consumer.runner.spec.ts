import { redeliveryDelayMs } from './event-consumer.runner';

describe('redeliveryDelayMs', () => {
  it('backs off exponentially from one second and caps at a minute', () => {
    expect([1, 2, 3, 4].map(redeliveryDelayMs)).toEqual([1000, 2000, 4000, 8000]);
    expect(redeliveryDelayMs(10)).toBe(60_000);
  });
});
