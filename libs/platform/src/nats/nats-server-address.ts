/**
 * NATS_URL may carry a user and password (`nats://gateway:secret@nats:4222`): production gives each service its
 * own NATS user with subject permissions (k8s/overlays/prod). nats.js does not read credentials from a server
 * URL, so they are taken out here and passed as options; the URL it dials, and any URL we log, carries none.
 */
export interface NatsServerAddress {
  server: string;
  user?: string;
  pass?: string;
}

export function natsServerAddressOf(url: string): NatsServerAddress {
  const parsed = new URL(url);
  if (!parsed.username) return { server: url };
  const user = decodeURIComponent(parsed.username);
  const pass = parsed.password ? decodeURIComponent(parsed.password) : undefined;
  parsed.username = '';
  parsed.password = '';
  return { server: parsed.toString().replace(/\/$/, ''), user, pass };
}

/** The URL as it may appear in logs: credentials masked. */
export function shownNatsUrl(url: string): string {
  return url.replace(/\/\/[^@/]*@/, '//***@');
}
