import { randomBytes } from 'node:crypto';
import { encodeTagCode } from '@homing/contracts';

/** A new unguessable tag code: 80 bits from the operating system's CSPRNG. */
export function mintTagCode(): string {
  return encodeTagCode(randomBytes(10));
}
