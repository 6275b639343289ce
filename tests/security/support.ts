import { randomBytes } from 'node:crypto';
import Redis from 'ioredis';
import { testInfra } from '@homing/testing';
import type { Stack } from '../support/stack';

export interface Answer<T = unknown> {
  status: number;
  body: T;
  text: string;
  headers: Headers;
  ms: number;
}

export interface CallOptions {
  body?: unknown;
  token?: string;
  finderToken?: string;
  /** The client address the trusted proxy (loopback) reports; a fresh one by default, as rate limits count per address. */
  from?: string;
  headers?: Record<string, string>;
  /** The gateway to call instead of the stack's (`http://127.0.0.1:<port>`). */
  base?: string;
  /** The path is from the server's root, not from `/api/v1` (the QR images, the web app). */
  root?: boolean;
}

/** A client address no other call of the run uses (the rate limits count per address). */
export const clientAddress = (): string => `10.${randomBytes(1)[0]}.${randomBytes(1)[0]}.${randomBytes(1)[0]}`;

/** One call to the API through the trusted proxy, timed, its body parsed when it is JSON. */
export async function call<T = unknown>(stack: Stack, method: string, path: string, options: CallOptions = {}): Promise<Answer<T>> {
  const headers: Record<string, string> = { 'x-forwarded-for': options.from ?? clientAddress(), ...options.headers };
  if (options.body !== undefined) headers['content-type'] ??= 'application/json';
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.finderToken) headers['x-finder-token'] = options.finderToken;
  const started = performance.now();
  const response = await fetch(`${options.base ?? stack.base}${options.root ? '' : '/api/v1'}${path}`, {
    method,
    headers,
    body: options.body === undefined ? undefined : typeof options.body === 'string' || Buffer.isBuffer(options.body) ? (options.body as string | Buffer) : JSON.stringify(options.body),
  });
  const text = await response.text();
  const ms = performance.now() - started;
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    // Not JSON: the text is the body.
  }
  return { status: response.status, body: body as T, text, headers: response.headers, ms };
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/** Where any of the secrets occurs in the texts (as is, URL-encoded or JSON-escaped): `<where>: <secret prefix>…`. */
export function findSecrets(secrets: Iterable<string>, texts: Array<{ where: string; text: string }>): string[] {
  const found: string[] = [];
  for (const secret of secrets) {
    if (secret.length < 6) continue;
    const forms = new Set([secret, encodeURIComponent(secret), JSON.stringify(secret).slice(1, -1)]);
    for (const { where, text } of texts) {
      if ([...forms].some((form) => text.includes(form))) found.push(`${where}: ${secret.slice(0, 6)}…`);
    }
  }
  return found;
}

/**
 * Empties the gateway's e-mail budgets of the stack (Redis keys `<namespace>:mail-budget:*`), or only those of one
 * window (`60000`: the minute's): for tests that ask for more mails than an address's budget on purpose and check
 * something else than the budget.
 */
export async function forgetMailBudgets(stack: Pick<Stack, 'namespace'>, windowMs?: number): Promise<void> {
  const redis = new Redis(testInfra().redisUrl, { lazyConnect: true });
  await redis.connect();
  try {
    const keys = await redis.keys(`${stack.namespace}:mail-budget:*`);
    const chosen = windowMs === undefined ? keys : keys.filter((key) => key.includes(`:${windowMs}:`));
    if (chosen.length > 0) await redis.del(...chosen);
  } finally {
    redis.disconnect();
  }
}
