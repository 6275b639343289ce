import { createMessageBodySchema } from './conversations';
import { MESSAGE_MAX_LENGTH } from './limits';

describe('a message body', () => {
  it('keeps newlines, trims, and makes Windows line ends plain newlines', () => {
    expect(createMessageBodySchema.parse({ content: '  Found it\r\nat the station \n' }).content).toBe('Found it\nat the station');
  });

  it('refuses other control characters, empty content and content over the limit', () => {
    for (const content of ['a\u0000b', 'tab\there', '   ', 'x'.repeat(MESSAGE_MAX_LENGTH + 1)]) {
      expect(createMessageBodySchema.safeParse({ content }).success).toBe(false);
    }
    expect(createMessageBodySchema.safeParse({ content: 'x'.repeat(MESSAGE_MAX_LENGTH) }).success).toBe(true);
  });
});
