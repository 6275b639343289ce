import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';

// What a stored first answer can hold: a finder token, an e-mail. It is kept sealed with a key only the caller
// holds (their Idempotency-Key), so the table alone, a backup or a database reader, cannot read it again.
const FORMAT = 'v1';
const HKDF_INFO = 'homing idempotency answer v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * How an Idempotency-Key is kept: its SHA-256, so the row can be found by a retry but the key, and with it the
 * answer's key, cannot be read from the table.
 */
export function storedIdempotencyKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

// The scope is the HKDF salt and, with the stored key, the additional data: an answer copied to another row or
// caller does not open.
function answerKey(key: string, scope: string): Buffer {
  return Buffer.from(hkdfSync('sha256', Buffer.from(key, 'utf8'), Buffer.from(scope, 'utf8'), HKDF_INFO, 32));
}

function additionalData(scope: string, key: string): Buffer {
  return Buffer.from(`${scope}\n${storedIdempotencyKey(key)}`, 'utf8');
}

/** Seals a JSON answer with AES-256-GCM under a key derived (HKDF-SHA-256) from the Idempotency-Key. */
export function sealAnswer(answer: unknown, key: string, scope: string): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', answerKey(key, scope), iv);
  cipher.setAAD(additionalData(scope, key));
  const sealed = Buffer.concat([cipher.update(JSON.stringify(answer ?? null), 'utf8'), cipher.final()]);
  return [FORMAT, iv.toString('base64'), cipher.getAuthTag().toString('base64'), sealed.toString('base64')].join('.');
}

/** Opens what sealAnswer sealed; throws when the key or scope is not the one it was sealed with. */
export function openAnswer<T>(sealed: string, key: string, scope: string): T {
  const [format, iv, tag, data] = sealed.split('.');
  if (format !== FORMAT || iv === undefined || tag === undefined || data === undefined) throw new Error('not a sealed idempotency answer');
  const decipher = createDecipheriv('aes-256-gcm', answerKey(key, scope), Buffer.from(iv, 'base64'), { authTagLength: TAG_BYTES });
  decipher.setAAD(additionalData(scope, key));
  decipher.setAuthTag(Buffer.from(tag, 'base64'));
  const plain = Buffer.concat([decipher.update(Buffer.from(data, 'base64')), decipher.final()]).toString('utf8');
  return JSON.parse(plain) as T;
}
