import { createHash, randomBytes } from 'node:crypto';

/** A new finder token: 128 random bits, base64url (22 characters). Given to the finder once, never stored. */
export function newFinderToken(): string {
  return randomBytes(16).toString('base64url');
}

/** What is stored of a finder token: its SHA-256. A token is random, so a fast unsalted hash is enough. */
export function hashFinderToken(token: string): string {
  return createHash('sha256').update(token).digest('base64url');
}
