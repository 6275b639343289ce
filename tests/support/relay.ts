import { randomUUID } from 'node:crypto';
import { expectEventually, type ReceivedMail } from '@homing/testing';
import { apiCall, ownedItem } from './api';
import { plainMail, smtpSend, type SmtpConversation } from './smtp-client';
import type { Stack } from './stack';

/** The relay address of a tag, as printed on its sheet: the code without dashes, in lower case. */
export const tagAddress = (code: string): string => `tag-${code.replace(/-/g, '').toLowerCase()}@relay.localhost`;

/** The address in a received mail's `Reply-To` header ('' when it has none). */
export const replyToOf = (mail: ReceivedMail): string =>
  mail.headers
    .find((header) => header.key === 'reply-to')
    ?.value.replace(/^.*<|>.*$/g, '')
    .trim() ?? '';

/**
 * One mail through the stack's relay (`startStack({ relay: true })`) over SMTP on the loopback, from 127.0.0.1 or the
 * sending host `localAddress` (another loopback address, 127.0.0.x).
 */
export function relayMail(
  stack: Pick<Stack, 'relaySmtpPort'>,
  envelope: { mailFrom: string; rcptTo: string[] },
  headers: Record<string, string>,
  text: string,
  options: { localAddress?: string } = {},
): Promise<SmtpConversation> {
  if (!stack.relaySmtpPort) throw new Error('the stack runs no mail relay: startStack({ relay: true })');
  return smtpSend(stack.relaySmtpPort, envelope, plainMail({ 'Message-ID': `<${randomUUID()}@example.test>`, ...headers }, text), options);
}

/**
 * An owner as activation makes one (a real account, so the product e-mails them), with an item messaging knows;
 * with `password`, one who then chose a password (to erase their account with it).
 */
export async function ownerWithItem(stack: Pick<Stack, 'api' | 'nc' | 'namespace'>, { password = false } = {}): Promise<{ email: string; password: string | null; token: string; code: string }> {
  const email = `owner-${randomUUID()}@example.test`;
  const reply = await stack.nc.request(`${stack.namespace}.identity.rpc.ensure-user`, JSON.stringify({ email, language: 'en' }), { timeout: 5000 });
  const ensured = reply.json<{ passwordToken: string; loginToken: string }>();
  let token = ensured.loginToken;
  let chosen: string | null = null;
  if (password) {
    chosen = `pw-${randomUUID()}`;
    const set = await apiCall<{ token: string }>(stack, 'POST', '/user/password', { body: { token: ensured.passwordToken, password: chosen } });
    expect(set.status).toBe(200);
    token = set.body.token;
  }
  const { code } = await ownedItem(stack, token);
  return { email, password: chosen, token, code };
}

/** The first mail to `address` with this subject, once it has come. */
export function mailWithSubject(stack: Pick<Stack, 'mail'>, address: string, subject: string): Promise<ReceivedMail> {
  return expectEventually(() => {
    const found = stack.mail.mailsTo(address).find((mail) => mail.subject === subject);
    if (!found) throw new Error(`no e-mail "${subject}" to ${address} yet`);
    return found;
  });
}
