/** A fresh key that lets the API client retry a POST safely. crypto.randomUUID needs a secure context; this does not. */
export function newIdempotencyKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
}
