import { isIP } from 'node:net';

/**
 * The browsers' push services (Chrome and most Chromium browsers, Firefox, Edge, Safari). An endpoint elsewhere is
 * refused: a subscription must never make the workers call an internal or arbitrary host (RELIABILITY S12).
 */
export const DEFAULT_PUSH_SERVICE_HOSTS = ['fcm.googleapis.com', 'updates.push.services.mozilla.com', '*.notify.windows.com', 'web.push.apple.com'];

/** One allowed push service: an exact host or `*.domain` (any subdomain), on one port. */
export interface PushServiceHost {
  pattern: string;
  host: string;
  wildcard: boolean;
  port: number;
  /** An IP address or localhost: for tests and development only. */
  internal: boolean;
}

/** `host[:port]` or `*.domain[:port]`, comma-separated; the port defaults to 443. */
export function parsePushServiceHosts(list: string): PushServiceHost[] {
  const entries = list.split(',').map((entry) => entry.trim().toLowerCase()).filter(Boolean);
  if (entries.length === 0) throw new Error('at least one push service host');
  return entries.map((pattern) => {
    const match = /^(\*\.)?([a-z0-9.-]+|\[[0-9a-f:]+\])(?::(\d{1,5}))?$/.exec(pattern);
    const port = Number(match?.[3] ?? 443);
    if (!match || port < 1 || port > 65535) throw new Error(`not a host[:port] or *.domain[:port]: ${pattern}`);
    const host = match[2].replace(/^\[|\]$/g, '');
    const internal = isIP(host) !== 0 || host === 'localhost' || host.endsWith('.localhost');
    return { pattern, host, wildcard: Boolean(match[1]), port, internal };
  });
}

/**
 * Whether an endpoint may be called: https, no credentials, on an allowed push service's host and port. Checked when a
 * subscription is registered and again before every send (the allowed list may have changed since).
 */
export function isAllowedPushEndpoint(endpoint: string, allowed: readonly PushServiceHost[]): boolean {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    return false;
  }
  if (url.protocol !== 'https:' || url.username || url.password) return false;
  const host = url.hostname.toLowerCase().replace(/^\[|\]$/g, '');
  const port = url.port ? Number(url.port) : 443;
  return allowed.some((entry) => entry.port === port && (entry.wildcard ? host.endsWith(`.${entry.host}`) : host === entry.host));
}
