import { randomBytes } from 'node:crypto';
import { request as httpRequest } from 'node:http';
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
  const url = `${options.base ?? stack.base}${options.root ? '' : '/api/v1'}${path}`;
  const body = options.body === undefined ? undefined : typeof options.body === 'string' || Buffer.isBuffer(options.body) ? (options.body as string | Buffer) : JSON.stringify(options.body);
  const started = performance.now();
  const { status, text, headers: answerHeaders } =
    body !== undefined && Buffer.byteLength(body) > LARGE_BODY_BYTES ? await sendLargeBody(url, method, headers, body) : await fetchText(url, method, headers, body);
  const ms = performance.now() - started;
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    // Not JSON: the text is the body.
  }
  return { status, body: parsed as T, text, headers: answerHeaders, ms };
}

interface RawAnswer {
  status: number;
  text: string;
  headers: Headers;
}

async function fetchText(url: string, method: string, headers: Record<string, string>, body: string | Buffer | undefined): Promise<RawAnswer> {
  const response = await fetch(url, { method, headers, body });
  return { status: response.status, text: await response.text(), headers: response.headers };
}

// Past this, a body may still be on its way when the gateway refuses it (413 on its length alone).
const LARGE_BODY_BYTES = 64 * 1024;

/**
 * A large body sent as a browser sends an upload: the answer counts once it has come, even if the server stops
 * reading the body and the rest of it cannot be written (EPIPE or a reset after an early 413). fetch (undici) fails
 * the whole call on such a write error, whatever answer it already holds.
 */
function sendLargeBody(url: string, method: string, headers: Record<string, string>, body: string | Buffer): Promise<RawAnswer> {
  return new Promise((resolveAnswer, rejectAnswer) => {
    let answered = false;
    const outgoing = httpRequest(url, { method, headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) } }, (incoming) => {
      answered = true;
      const chunks: Buffer[] = [];
      incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
      incoming.on('end', () => {
        const answerHeaders = new Headers();
        for (const [name, value] of Object.entries(incoming.headers)) if (value !== undefined) answerHeaders.set(name, Array.isArray(value) ? value.join(', ') : value);
        resolveAnswer({ status: incoming.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8'), headers: answerHeaders });
      });
      incoming.on('error', rejectAnswer);
    });
    outgoing.on('error', (error) => {
      if (!answered) rejectAnswer(error);
    });
    outgoing.end(body);
  });
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
