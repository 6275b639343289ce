import { parseRelayAddress, relayReplyAddress, relayTagAddress } from './relay';

const DOMAIN = 'relay.localhost';

describe('relay addresses', () => {
  it('names a tag by its code without dashes, in any case', () => {
    expect(relayTagAddress('ABCD1234EFGH5678', DOMAIN)).toBe('tag-abcd1234efgh5678@relay.localhost');
    expect(parseRelayAddress('tag-abcd1234efgh5678@relay.localhost', DOMAIN)).toEqual({ kind: 'tag', code: 'ABCD1234EFGH5678' });
    expect(parseRelayAddress('TAG-ABCD1234EFGH5678@Relay.Localhost', DOMAIN)).toEqual({ kind: 'tag', code: 'ABCD1234EFGH5678' });
    // Crockford's look-alikes read as the digits they stand for, as on the page.
    expect(parseRelayAddress('tag-abcdi234efgh567o@relay.localhost', DOMAIN)).toEqual({ kind: 'tag', code: 'ABCD1234EFGH5670' });
  });

  it('names a conversation by a reply token', () => {
    const token = 'abcdefghijklmnopqrstuvwxyz';
    expect(parseRelayAddress(relayReplyAddress(token, DOMAIN), DOMAIN)).toEqual({ kind: 'reply', token });
    expect(parseRelayAddress(`C-${token.toUpperCase()}@relay.localhost`, DOMAIN)).toEqual({ kind: 'reply', token });
  });

  it.each([
    'tag-abcd1234efgh5678@elsewhere.example',
    'tag-abcd1234efgh567@relay.localhost',
    'tag-@relay.localhost',
    'c-short@relay.localhost',
    'c-abcdefghijklmnopqrstuvwxy1@relay.localhost',
    'postmaster@relay.localhost',
    '@relay.localhost',
    'no-at-sign',
    `tag-${'a'.repeat(300)}@relay.localhost`,
  ])('names nothing for %s', (address) => {
    expect(parseRelayAddress(address, DOMAIN)).toBeNull();
  });
});
