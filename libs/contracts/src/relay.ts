import { z } from 'zod';
import { parseTagCode } from './tag-code';

/**
 * The e-mail relay's addresses (apps/mail-relay). `tag-{code}@{RELAY_DOMAIN}` opens a conversation about a tag, for
 * finders who e-mail rather than use the page; `c-{token}@{RELAY_DOMAIN}` is a reply address, one per recipient and
 * conversation, on every e-mail the product sends about a conversation. Both are case-insensitive: mail systems may
 * change the case of a local part, so tokens use lower-case base32 only.
 */
export const RELAY_TAG_PREFIX = 'tag-';
export const RELAY_REPLY_PREFIX = 'c-';

/** A reply token: 128 random bits as 26 characters of lower-case RFC 4648 base32. */
export const relayReplyTokenSchema = z.string().regex(/^[a-z2-7]{26}$/);

/** What a relay address names: a tag (its canonical code), or a conversation by a reply token. */
export const relayRecipientSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('tag'), code: z.string().regex(/^[0-9A-Z]{16}$/) }),
  z.object({ kind: z.literal('reply'), token: relayReplyTokenSchema }),
]);
export type RelayRecipient = z.infer<typeof relayRecipientSchema>;

/** `tag-abcd1234efgh5678@relay.example`: the code without dashes, in lower case (any case is accepted). */
export function relayTagAddress(canonicalCode: string, domain: string): string {
  return `${RELAY_TAG_PREFIX}${canonicalCode.toLowerCase()}@${domain}`;
}

export function relayReplyAddress(token: string, domain: string): string {
  return `${RELAY_REPLY_PREFIX}${token}@${domain}`;
}

/**
 * What an address at the relay's domain names, or null when it names nothing (another domain, another form, a code
 * that cannot be one). The domain is compared without case; the local part too (codes and tokens are case-free).
 */
export function parseRelayAddress(address: string, domain: string): RelayRecipient | null {
  if (address.length > 254) return null;
  const at = address.lastIndexOf('@');
  if (at < 1 || address.slice(at + 1).toLowerCase() !== domain.toLowerCase()) return null;
  const local = address.slice(0, at).toLowerCase();
  if (local.startsWith(RELAY_TAG_PREFIX)) {
    const code = parseTagCode(local.slice(RELAY_TAG_PREFIX.length));
    return code ? { kind: 'tag', code } : null;
  }
  if (local.startsWith(RELAY_REPLY_PREFIX)) {
    const token = local.slice(RELAY_REPLY_PREFIX.length);
    return relayReplyTokenSchema.safeParse(token).success ? { kind: 'reply', token } : null;
  }
  return null;
}
