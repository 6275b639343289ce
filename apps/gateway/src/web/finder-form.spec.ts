import { MESSAGE_MAX_LENGTH } from '@homing/contracts';
import {
  clearedFinderCookie,
  FINDER_COOKIE_MAX_AGE_SECONDS,
  finderCookie,
  finderPagePath,
  finderTokenFromCookies,
  isSameOrigin,
  parseFinderForm,
  validateFinderForm,
} from './finder-form';

const ORIGIN = 'https://homing.example';
const TOKEN = 'AbCdEfGhIjKlMnOpQrStUv';

describe('the finder page form', () => {
  it('reads the message, the address and the page language a browser posts', () => {
    expect(parseFinderForm('language=nl&content=Gevonden+bij+het+station%0D%0Avandaag&email=+finder%40example.test+')).toEqual({
      content: 'Gevonden bij het station\r\nvandaag',
      email: 'finder@example.test',
      language: 'nl',
    });
  });

  it('takes missing fields as empty and a language it does not offer as none', () => {
    expect(parseFinderForm('language=it')).toEqual({ content: '', email: '', language: undefined });
  });

  it('refuses a field the page does not have, or one sent twice', () => {
    expect(parseFinderForm('content=hi&conversation_id=1')).toBeNull();
    expect(parseFinderForm('content=hi&content=again')).toBeNull();
  });

  it('validates with the API’s rules: the message is required and bounded, the address when given must be one', () => {
    expect(validateFinderForm({ content: '  Found it\r\nhere ', email: '', language: undefined })).toEqual({ valid: true, content: 'Found it\nhere', email: undefined });
    expect(validateFinderForm({ content: 'Found it', email: 'finder@example.test', language: 'en' })).toEqual({ valid: true, content: 'Found it', email: 'finder@example.test' });
    expect(validateFinderForm({ content: '   ', email: 'not an address', language: 'en' })).toEqual({ valid: false, validation: { content: 'required', email: 'email' } });
    expect(validateFinderForm({ content: 'x'.repeat(MESSAGE_MAX_LENGTH + 1), email: '', language: 'en' })).toEqual({
      valid: false,
      validation: { content: `max=${MESSAGE_MAX_LENGTH}` },
    });
  });
});

describe('an address alone', () => {
  it('is taken from a finder in their conversation (the page asks for it again), and checked as set-finder checks it', () => {
    const alone = { content: '  ', email: 'finder@example.test', language: undefined };
    expect(validateFinderForm(alone, { inConversation: true })).toEqual({ valid: true, content: '', email: 'finder@example.test' });
    expect(validateFinderForm({ ...alone, email: 'nope' }, { inConversation: true })).toEqual({ valid: false, validation: { email: 'email' } });
  });

  it('is no message from anyone else: a first message needs its text', () => {
    expect(validateFinderForm({ content: '', email: 'finder@example.test', language: undefined })).toEqual({ valid: false, validation: { content: 'required' } });
    expect(validateFinderForm({ content: '', email: '', language: undefined }, { inConversation: true })).toEqual({ valid: false, validation: { content: 'required' } });
  });
});

describe('the same-origin check of a posted form', () => {
  it('accepts a post whose Origin is the site’s', () => {
    expect(isSameOrigin({ origin: ORIGIN }, ORIGIN)).toBe(true);
  });

  it('refuses another site, a sandboxed page (Origin null) and another scheme or port of the same host', () => {
    for (const origin of ['https://evil.example', 'null', 'http://homing.example', 'https://homing.example:8443']) expect(isSameOrigin({ origin }, ORIGIN)).toBe(false);
  });

  it('falls back to the Referer only when there is no Origin', () => {
    expect(isSameOrigin({ referer: `${ORIGIN}/found/ABCD` }, ORIGIN)).toBe(true);
    expect(isSameOrigin({ referer: 'https://evil.example/found/ABCD' }, ORIGIN)).toBe(false);
    expect(isSameOrigin({ referer: 'not a url' }, ORIGIN)).toBe(false);
    expect(isSameOrigin({ origin: 'https://evil.example', referer: `${ORIGIN}/found/ABCD` }, ORIGIN)).toBe(false);
  });

  it('refuses a post that names neither', () => {
    expect(isSameOrigin({}, ORIGIN)).toBe(false);
  });
});

describe('the finder cookie', () => {
  it('is kept for the one finder page, out of reach of script and other sites, over https when the site is', () => {
    expect(finderCookie(TOKEN, finderPagePath('ABCD-EFGH'), true)).toBe(
      `homing_finder=${TOKEN}; Path=/found/ABCD-EFGH; Max-Age=${FINDER_COOKIE_MAX_AGE_SECONDS}; HttpOnly; SameSite=Strict; Secure`,
    );
    expect(finderCookie(TOKEN, '/found/ABCD', false)).not.toContain('Secure');
    expect(clearedFinderCookie('/found/ABCD', false)).toBe('homing_finder=; Path=/found/ABCD; Max-Age=0; HttpOnly; SameSite=Strict');
  });

  it('keeps a path a code cannot break out of', () => {
    expect(finderPagePath('AB;CD/..')).toBe('/found/AB%3BCD%2F..');
  });

  it('is read back among other cookies, and a malformed one is no token', () => {
    expect(finderTokenFromCookies(`lang=nl; homing_finder=${TOKEN}; other=1`)).toBe(TOKEN);
    expect(finderTokenFromCookies('homing_finder=short')).toBeUndefined();
    expect(finderTokenFromCookies('xhoming_finder=AbCdEfGhIjKlMnOpQrStUv')).toBeUndefined();
    expect(finderTokenFromCookies(undefined)).toBeUndefined();
  });
});
