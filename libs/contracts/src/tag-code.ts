/**
 * Tag codes: 16 characters of Crockford base32 (80 random bits), case-insensitive, shown as
 * `XXXX-XXXX-XXXX-XXXX`. Holding the tag is the proof of ownership at activation, so codes must be unguessable.
 */
export const TAG_CODE_LENGTH = 16;
export const CROCKFORD_ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

const CANONICAL = /^[0-9ABCDEFGHJKMNPQRSTVWXYZ]{16}$/;

/**
 * For each ASCII character, what it is in a code: the canonical character's code, SKIP for a separator (hyphen or
 * ASCII white space), INVALID for anything else.
 */
const SKIP = -1;
const INVALID = -2;
// The characters of the code being read (parseTagCode is synchronous, so one buffer serves every call).
const READ: number[] = new Array<number>(TAG_CODE_LENGTH).fill(0);
const ASCII_READING = ((): Int16Array => {
  const reading = new Int16Array(128).fill(INVALID);
  for (const separator of '-\t\n\v\f\r ') reading[separator.charCodeAt(0)] = SKIP;
  for (const character of CROCKFORD_ALPHABET) {
    reading[character.charCodeAt(0)] = character.charCodeAt(0);
    reading[character.toLowerCase().charCodeAt(0)] = character.charCodeAt(0);
  }
  for (const [typed, read] of [['I', '1'], ['L', '1'], ['O', '0']]) {
    reading[typed.charCodeAt(0)] = read.charCodeAt(0);
    reading[typed.toLowerCase().charCodeAt(0)] = read.charCodeAt(0);
  }
  return reading;
})();

/**
 * Reads a code as a person might type it: any case, with or without hyphens or spaces, and with the letters
 * Crockford maps to digits (I, L → 1; O → 0). Returns the canonical 16-character form, or null when it cannot be a code.
 * Every scan and QR image reads one, so ASCII input (all but a hand-typed oddity) is read in one pass over a table;
 * anything else goes the general way, which also knows Unicode's spaces and case mappings.
 */
export function parseTagCode(input: unknown): string | null {
  if (typeof input !== 'string' || input.length > 40) return null;
  let length = 0;
  for (let index = 0; index < input.length; index += 1) {
    const character = input.charCodeAt(index);
    if (character >= 128) return parseUnicodeTagCode(input);
    const read = ASCII_READING[character];
    if (read === INVALID) return null;
    if (read === SKIP) continue;
    if (length === TAG_CODE_LENGTH) return null;
    READ[length++] = read;
  }
  // One flat string made at once: the caches hash it next, and a string built by `+=` is a rope to flatten first.
  return length === TAG_CODE_LENGTH ? String.fromCharCode.apply(null, READ) : null;
}

function parseUnicodeTagCode(input: string): string | null {
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
