// Product spec §9: a chunk not loaded in 120 s has failed.
export const CHUNK_LOAD_TIMEOUT_MS = 120_000;

/** A page's code could not be loaded even after a second try; the error page offers a reload. */
export class ChunkLoadError extends Error {
  constructor(cause: unknown) {
    super('A part of the app could not be loaded', { cause });
    this.name = 'ChunkLoadError';
  }
}

function withTimeout<T>(load: () => Promise<T>, timeoutMs: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`not loaded in ${timeoutMs} ms`)), timeoutMs);
    load().then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}

/** Loads a route's code, trying once more when the first try fails or takes too long (a flaky phone connection). */
export async function loadChunk<T>(load: () => Promise<T>, timeoutMs = CHUNK_LOAD_TIMEOUT_MS): Promise<T> {
  try {
    return await withTimeout(load, timeoutMs);
  } catch {
    try {
      return await withTimeout(load, timeoutMs);
    } catch (error) {
      throw new ChunkLoadError(error);
    }
  }
}
