import { randomUUID } from 'node:crypto';
import type { PublicItem, UserLanguage } from '@homing/contracts';
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

/**
 * An owner as activation makes one (identity's `ensure-user`), who then sets a password through the gateway: a real
 * account whose session was opened just now. Without `password`, the owner activation left, with its login token.
 */
export async function ownerOfStack(
  stack: Pick<Stack, 'api' | 'nc' | 'namespace'>,
  options?: { language?: UserLanguage; password?: true },
): Promise<{ email: string; password: string; userId: string; token: string }>;
export async function ownerOfStack(
  stack: Pick<Stack, 'api' | 'nc' | 'namespace'>,
  options: { language?: UserLanguage; password?: boolean },
): Promise<{ email: string; password: string | null; userId: string; token: string }>;
export async function ownerOfStack(
  stack: Pick<Stack, 'api' | 'nc' | 'namespace'>,
  { language = 'nl', password = true }: { language?: UserLanguage; password?: boolean } = {},
): Promise<{ email: string; password: string | null; userId: string; token: string }> {
  const email = `owner-${randomUUID()}@example.test`;
  const reply = await stack.nc.request(`${stack.namespace}.identity.rpc.ensure-user`, JSON.stringify({ email, language }), { timeout: 5000 });
  const ensured = reply.json<{ userId: string; passwordToken: string; loginToken: string }>();
  if (!password) return { email, password: null, userId: ensured.userId, token: ensured.loginToken };
  const chosen = `pw-${randomUUID()}`;
  const set = await apiCall<{ token: string }>(stack, 'POST', '/user/password', { body: { token: ensured.passwordToken, password: chosen } });
  expect(set.status).toBe(200);
  return { email, password: chosen, userId: ensured.userId, token: set.body.token };
}
