import type { Logger } from '@nestjs/common';

/**
 * A warning that repeats (Redis refusing every reconnect) is logged when it changes, or once a minute, not each
 * second.
 */
export function throttledWarning(logger: Logger, prefix: string, everyMs = 60_000): (error: Error) => void {
  let last = '';
  let at = 0;
  return (error) => {
    const now = Date.now();
    if (error.message === last && now - at < everyMs) return;
    last = error.message;
    at = now;
    logger.warn(`${prefix}: ${error.message}`);
  };
}

/** Resolves when `work` settles or after `ms`, whichever comes first; true when it settled. */
export async function settlesWithin(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([work.then(
      () => true,
      () => true,
    ), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
