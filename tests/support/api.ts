import type { PublicItem } from '@homing/contracts';
import { expectEventually } from '@homing/testing';
import { testAccessToken } from './access-tokens';
import type { Stack } from './stack';

export interface ApiCaller {
  token?: string;
  finderToken?: string;
  idempotencyKey?: string;
  body?: unknown;
  /** More headers, such as the X-Forwarded-For a trusted proxy would add. */
  headers?: Record<string, string>;
}

/** One JSON call to the stack's API from the test's own address (loopback), its body parsed, with the answer's headers. */
export async function apiExchange<T>(stack: Pick<Stack, 'api'>, method: string, path: string, options: ApiCaller = {}): Promise<{ status: number; body: T; headers: Headers }> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.finderToken) headers['x-finder-token'] = options.finderToken;
  if (options.idempotencyKey) headers['idempotency-key'] = options.idempotencyKey;
  const response = await fetch(`${stack.api}${path}`, { method, headers, body: options.body === undefined ? undefined : JSON.stringify(options.body) });
  const text = await response.text();
  return { status: response.status, body: (text ? JSON.parse(text) : undefined) as T, headers: response.headers };
}

/** The same call, its status and parsed body only (what most tests compare whole). */
export async function apiCall<T>(stack: Pick<Stack, 'api'>, method: string, path: string, options: ApiCaller = {}): Promise<{ status: number; body: T }> {
  const { status, body } = await apiExchange<T>(stack, method, path, options);
  return { status, body };
}

/** An item of a new owner (a test access token), once messaging has learnt who owns it, so finders can write. */
export async function ownedItem(stack: Pick<Stack, 'api'>, token = testAccessToken().token): Promise<{ code: string; token: string }> {
  const created = await apiCall<PublicItem>(stack, 'POST', '/items', { token, body: { name: 'Keys' } });
  expect(created.status).toBe(201);
  await expectEventually(async () => expect((await apiCall(stack, 'GET', `/user/items/${created.body.code}/unread-count`, { token })).status).toBe(200));
  return { code: created.body.code, token };
}
