import { clientNetworkOf } from './client-network';

/**
 * Limits that more than one edge counts together in Redis (the gateway's HTTP routes and the mail relay's SMTP), so
 * a guesser or a flood cannot go round one by using the other. The key names are persisted in Redis for a window.
 */

/**
 * Lookups of tag codes that do not exist, per client (ARCHITECTURE §7; an IPv6 client by its /64, `clientNetworkOf`):
 * 30 an hour, then every route (or relay address) that takes a code refuses that client until the window ends.
 */
export const UNKNOWN_CODE_LIMIT = { misses: 30, windowMs: 60 * 60_000 } as const;

export function unknownCodeMissesKey(namespace: string, address: string): string {
  // Environments (and test workers) sharing one Redis count apart; both edges count an address by its client.
  return `${namespace}:items:unknown-codes:${clientNetworkOf(address)}`;
}

/**
 * Spam limits on a tag's thread, per hour (ARCHITECTURE §8, RELIABILITY A4): one writer (a client address on the web,
 * a sender's address by e-mail) may write so much to one tag, and one tag may receive so much from everyone. A finder
 * and an owner arranging a hand-over write a few dozen messages at most.
 */
export const MESSAGE_LIMITS = { perAddressPerTag: 20, perTag: 200, windowMs: 60 * 60_000 } as const;

/** The tag's key, and the writer's key for that tag. */
export function messageLimitKeys(namespace: string, canonicalCode: string, writer: string): { tagKey: string; writerKey: string } {
  const tagKey = `${namespace}:messages:${canonicalCode}`;
  return { tagKey, writerKey: `${tagKey}:${writer}` };
}

/** Milliseconds to wait when a write is past a limit, or 0 when it may go ahead. */
export function messageLimitWait(counts: { address: number; tag: number }, remainingMs: { address: number; tag: number }, limits = MESSAGE_LIMITS): number {
  if (counts.address > limits.perAddressPerTag) return Math.max(1000, remainingMs.address);
  if (counts.tag > limits.perTag) return Math.max(1000, remainingMs.tag);
  return 0;
}
