/**
 * Retries an assertion until it passes or the time is up, then throws its last error. For effects that happen
 * asynchronously (an event consumed, a row projected); never a bare sleep.
 */
export async function expectEventually<T>(assertion: () => T | Promise<T>, { timeoutMs = 10_000, intervalMs = 100 } = {}): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await assertion();
    } catch (error) {
      if (Date.now() >= deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, intervalMs));
    }
  }
}
