import { createHash } from 'node:crypto';
import type Redis from 'ioredis';
import { countInWindow } from './window-counter';

describe('countInWindow', () => {
  it('asks for the script by its digest, and sends it whole where Redis has not seen it yet (after a restart or a failover)', async () => {
    const evalsha = jest.fn().mockRejectedValueOnce(new Error('NOSCRIPT No matching script. Please use EVAL.')).mockResolvedValue([2, 500, 7, 900]);
    const evalWhole = jest.fn().mockResolvedValue([1, 1000, 6, 1000]);
    const redis = { evalsha, eval: evalWhole } as unknown as Redis;

    expect(await countInWindow(redis, ['a', 'b'], 1000)).toEqual([
      { count: 1, remainingMs: 1000 },
      { count: 6, remainingMs: 1000 },
    ]);
    expect(evalWhole).toHaveBeenCalledWith(expect.stringContaining("redis.call('INCR', key)"), 2, 'a', 'b', 1000);
    // The digest asked for is the script's own, as Redis names a script it has cached.
    const script = evalWhole.mock.calls[0][0] as string;
    expect(evalsha.mock.calls[0]).toEqual([createHash('sha1').update(script).digest('hex'), 2, 'a', 'b', 1000]);

    expect(await countInWindow(redis, ['a', 'b'], 1000)).toEqual([
      { count: 2, remainingMs: 500 },
      { count: 7, remainingMs: 900 },
    ]);
    expect(evalWhole).toHaveBeenCalledTimes(1);
  });

  it('passes any other failure on: Redis away is the caller’s to handle', async () => {
    const redis = { evalsha: jest.fn().mockRejectedValue(new Error('Connection is closed.')), eval: jest.fn() } as unknown as Redis;
    await expect(countInWindow(redis, ['a'], 1000)).rejects.toThrow('Connection is closed.');
    expect(redis.eval).not.toHaveBeenCalled();
  });
});
