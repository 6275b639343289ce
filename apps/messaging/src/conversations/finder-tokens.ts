import { createHash, randomBytes } from 'node:crypto';

/** A new finder token: 128 random bits, base64url (22 characters). Given to the finder once, never stored. */
export function newFinderToken(): string {
  return randomBytes(16).toString('base64url');
}

/** What is stored of a finder token: its SHA-256. A token is random, so a fast unsalted hash is enough. */
export function hashFinderToken(token: string): string {
  return createHash('sha256').update(token).digest('base64url');
}

/** A resume link stops working when its conversation has had no message (nor began) for this long. */
export const RESUME_LINK_IDLE_MS = 30 * 24 * 60 * 60_000;

/**
 * Whether a resume link of a conversation still works: within 30 days of its last activity (its latest message, or
 * when it began if it has none). A link is a key to the conversation: one left in an old mailbox must not open it for ever.
 */
export function resumeLinkAlive(conversation: { created_at: Date; last_message_at: Date | null }, now: Date): boolean {
  const lastActivity = conversation.last_message_at ?? conversation.created_at;
  return now.getTime() - lastActivity.getTime() <= RESUME_LINK_IDLE_MS;
}
