import { relayReplyTokenSchema } from '@homing/contracts';
import { hashReplyToken, newReplyToken } from './reply-addresses.repository';

describe('reply tokens', () => {
  it('are 128 random bits in lower-case base32, each new', () => {
    const tokens = new Set(Array.from({ length: 1000 }, () => newReplyToken()));
    expect(tokens.size).toBe(1000);
    for (const token of tokens) expect(relayReplyTokenSchema.safeParse(token).success).toBe(true);
    // Every one of the 32 letters turns up in the first 25 places; the 26th holds the last 3 bits only.
    const firstPlaces = [...tokens].map((token) => token.slice(0, 25)).join('');
    expect(new Set(firstPlaces).size).toBe(32);
  });

  it('are kept as a hash that ignores the case a mail system gave them', () => {
    const token = newReplyToken();
    expect(hashReplyToken(token.toUpperCase())).toBe(hashReplyToken(token));
    expect(hashReplyToken(token)).not.toContain(token);
  });
});
