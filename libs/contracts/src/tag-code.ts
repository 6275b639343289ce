/**
 * Tag codes: 16 characters of Crockford base32 (80 random bits), case-insensitive, shown as
 * `XXXX-XXXX-XXXX-XXXX`. Holding the tag is the proof of ownership at activation, so codes must be unguessable.
 */
export const TAG_CODE_LENGTH = 16;
export const CROCKFORD_ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

const CANONICAL = /^[0-9ABCDEFGHJKMNPQRSTVWXYZ]{16}$/;

/**
 * Reads a code as a person might type it: any case, with or without hyphens or spaces, and with the letters
 * Crockford maps to digits (I, L → 1; O → 0). Returns the canonical 16-character form, or null when it cannot be a code.
 */
export function parseTagCode(input: unknown): string | null {
  if (typeof input !== 'string' || input.length > 40) return null;
  const canonical = input
    .toUpperCase()
    .replace(/[\s-]/g, '')
    .replace(/[IL]/g, '1')
    .replace(/O/g, '0');
  return CANONICAL.test(canonical) ? canonical : null;
}

/** `ABCD1234EFGH5678` → `ABCD-1234-EFGH-5678`. */
export function formatTagCode(canonical: string): string {
  return canonical.match(/.{1,4}/g)?.join('-') ?? canonical;
}

/** The finder page a tag's QR code opens: `PUBLIC_URL/found/XXXX-XXXX-XXXX-XXXX` (printed tags and `/qr` alike). */
export function foundPageUrl(publicUrl: string, canonicalCode: string): string {
  return `${publicUrl.replace(/\/+$/, '')}/found/${formatTagCode(canonicalCode)}`;
}

/** Encodes 10 random bytes (80 bits) as a canonical code. The caller supplies the randomness (crypto.randomBytes). */
export function encodeTagCode(randomBytes: Uint8Array): string {
  if (randomBytes.length !== 10) throw new RangeError('a tag code needs exactly 10 random bytes');
  let bits = 0;
  let value = 0;
  let code = '';
  for (const byte of randomBytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      code += CROCKFORD_ALPHABET[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  return code;
}
