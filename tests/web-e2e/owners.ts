import { randomUUID } from 'node:crypto';
import type { PublicItem } from '@homing/contracts';
import { expectEventually } from '@homing/testing';
import type { Stack } from '../support/stack';

/** A client address of its own for each set-up call, so the per-address limits never count a suite's set-up. */
const setUpAddress = () => `10.203.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`;

/**
 * An owner as activation makes one (identity's ensure-user) who then chose a password, with an item messaging has
 * heard of: what a browser test logs in with (`email`, `password`) and calls the API with (`token`).
 */
export async function ownerWithItem(stack: Stack, name: string): Promise<{ email: string; password: string; token: string; code: string }> {
  const email = `owner-${randomUUID()}@example.test`;
  const password = `pw-${randomUUID()}`;
  const reply = await stack.nc.request(`${stack.namespace}.identity.rpc.ensure-user`, JSON.stringify({ email, language: 'en' }), { timeout: 5000 });
  const { passwordToken } = reply.json<{ passwordToken: string }>();
  const set = await fetch(`${stack.api}/user/password`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': setUpAddress() },
    body: JSON.stringify({ token: passwordToken, password }),
  });
  expect(set.status).toBe(200);
  const { token } = (await set.json()) as { token: string };
  return { email, password, token, code: await newItem(stack, token, name) };
}

/** A new item of the owner's, once messaging has heard of it (a finder's message would be refused before); its code. */
export async function newItem(stack: Stack, token: string, name: string): Promise<string> {
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${token}`, 'x-forwarded-for': setUpAddress() };
  const created = await fetch(`${stack.api}/items`, { method: 'POST', headers, body: JSON.stringify({ name }) });
  expect(created.status).toBe(201);
  const { code } = (await created.json()) as PublicItem;
  await untilMessagingKnows(stack, token, code);
  return code;
}

/**
 * Waits until messaging has projected the owner's item (from items' event, milliseconds after the item is created or
 * claimed): before that a finder's message about it is refused with 404, as the contract says.
 */
export async function untilMessagingKnows(stack: Stack, token: string, code: string): Promise<void> {
  const headers = { authorization: `Bearer ${token}`, 'x-forwarded-for': setUpAddress() };
  await expectEventually(async () => expect((await fetch(`${stack.api}/user/items/${code}/unread-count`, { headers })).status).toBe(200));
}
