import { describe, expect, it, vi } from 'vitest';

import { ChunkLoadError, loadChunk } from './load-chunk';

describe('loading a page’s code', () => {
  it('tries a failed chunk once more', async () => {
    const load = vi.fn<() => Promise<string>>().mockRejectedValueOnce(new TypeError('Failed to fetch dynamically imported module')).mockResolvedValue('page');
    expect(await loadChunk(load)).toBe('page');
    expect(load).toHaveBeenCalledTimes(2);
  });

  it('gives up after the second failure with an error the error page recognises', async () => {
    const load = vi.fn<() => Promise<string>>().mockRejectedValue(new TypeError('offline'));
    await expect(loadChunk(load)).rejects.toBeInstanceOf(ChunkLoadError);
    expect(load).toHaveBeenCalledTimes(2);
  });

  it('counts a chunk that takes longer than the timeout as failed', async () => {
    vi.useFakeTimers();
    try {
      const load = vi.fn<() => Promise<string>>(() => new Promise(() => {}));
      const result = loadChunk(load).catch((error: unknown) => error);
      await vi.advanceTimersByTimeAsync(119_999);
      expect(load).toHaveBeenCalledTimes(1);
      await vi.advanceTimersByTimeAsync(1);
      expect(load).toHaveBeenCalledTimes(2);
      await vi.advanceTimersByTimeAsync(120_000);
      expect(await result).toBeInstanceOf(ChunkLoadError);
    } finally {
      vi.useRealTimers();
    }
  });
});
