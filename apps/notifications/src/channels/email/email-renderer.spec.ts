import { USER_LANGUAGES } from '@homing/contracts';
import { HTML_LAYOUT } from '../../templates/layout';
import { countryName, EMAIL_TEXTS, EmailRenderer, formatMailTime, oneLine } from './email-renderer';

describe('e-mail rendering', () => {
  const renderer = new EmailRenderer('https://homing.example');
  const userId = '019ab1c2-0000-7000-8000-000000000001';

  it.each(USER_LANGUAGES)('renders the login-code mail in %s with the code and its link, in HTML and plain text', (language) => {
    const email = renderer.render({ kind: 'login-code', data: { userId, code: 'ABCD2345' } }, language);
    expect(email.subject).toBe(EMAIL_TEXTS[language].mails['login-code'].subject);
    expect(email.html).toContain(`<html lang="${language}">`);
    expect(email.html).toContain('ABCD2345');
    expect(email.text).toContain('https://homing.example/login/code?code=ABCD2345');
    expect(email.html).toContain('https://homing.example/login/code?code&#x3D;ABCD2345');
    expect(email.text).toContain(EMAIL_TEXTS[language].mails['login-code'].intro[0]);
    expect(email.text).not.toContain('<');
  });

  it.each(USER_LANGUAGES)('renders the reset, welcome and tag-activated mails in %s with their links', (language) => {
    const reset = renderer.render({ kind: 'password-reset', data: { userId, token: 'reset-token_1' } }, language);
    expect(reset.text).toContain('https://homing.example/reset-password/reset-token_1');
    expect(reset.subject).toBe(EMAIL_TEXTS[language].mails['password-reset'].subject);
    const welcome = renderer.render({ kind: 'welcome', data: { userId, passwordToken: 'set-token' } }, language);
    expect(welcome.text).toContain('https://homing.example/set-password/set-token');
    const active = renderer.render({ kind: 'tag-activated', data: { userId, tagCode: 'ABCD1234EFGH5678' } }, language);
    // Through the login page, which sends the owner on to the item page (ec) once logged in.
    expect(active.text).toContain('https://homing.example/login?ec=ABCD-1234-EFGH-5678');
    // The code is named in the text, formatted as printed on the tag.
    expect(active.text).toContain('ABCD-1234-EFGH-5678 ');
    expect(active.html).toContain('ABCD-1234-EFGH-5678 ');
  });

  it.each(USER_LANGUAGES)('offers the welcome mail in %s a set-password link only to a user without a password', (language) => {
    const welcome = renderer.render({ kind: 'welcome', data: { userId, passwordToken: 'set-token' } }, language, { hasPassword: true });
    expect(welcome.text).not.toContain('set-password');
    expect(welcome.text).not.toContain('set-token');
    expect(welcome.text).toContain('https://homing.example/login');
    expect(welcome.text).toContain(EMAIL_TEXTS[language].welcomeWithPassword.action);
    expect(renderer.render({ kind: 'welcome', data: { userId, passwordToken: 'set-token' } }, language, { hasPassword: false }).text).toContain('/set-password/set-token');
  });

  it.each(USER_LANGUAGES)('renders the new-message and owner-reply mails in %s with links to the thread', (language) => {
    const owner = renderer.render({ kind: 'new-message', data: { userId, tagCode: 'ABCD1234EFGH5678' } }, language);
    expect(owner.subject).toBe(EMAIL_TEXTS[language].mails['new-message'].subject);
    // The owner's link goes through the login page (c: the thread), never to the finder's form when logged out.
    expect(owner.text).toContain('https://homing.example/login?c=ABCD-1234-EFGH-5678');
    expect(owner.text).toContain(EMAIL_TEXTS[language].layout.footer);
    const finder = renderer.render({ kind: 'owner-reply', data: { conversationId: userId, tagCode: 'ABCD1234EFGH5678' } }, language);
    expect(finder.text).toContain('https://homing.example/found/ABCD-1234-EFGH-5678');
    // A finder may have no account: not the account holder's footer.
    expect(finder.text).not.toContain(EMAIL_TEXTS[language].layout.footer);
    expect(finder.text).toContain(EMAIL_TEXTS[language].mails['owner-reply'].footer);
  });

  it.each(USER_LANGUAGES)('renders the farewell to an erased account in %s, complete, linking only to the home page', (language) => {
    const farewell = renderer.render({ kind: 'account-deleted', data: { email: 'gone@example.test', language } }, language);
    const texts = EMAIL_TEXTS[language].mails['account-deleted'];
    expect(farewell.subject).toBe(texts.subject);
    expect(farewell.html).toContain(`<html lang="${language}">`);
    for (const paragraph of [...texts.intro, ...texts.outro]) expect(farewell.text).toContain(paragraph);
    expect(farewell.text).toContain(`${texts.action}: https://homing.example/`);
    // Not the footer of an account holder: there is no account any more.
    expect(farewell.text).toContain(texts.footer);
    expect(farewell.text).not.toContain(EMAIL_TEXTS[language].layout.footer);
    // No placeholder left unfilled, and the address the job carries is not written into the mail.
    for (const part of [farewell.subject, farewell.html, farewell.text]) {
      expect(part).not.toMatch(/{{|}}/);
      expect(part).not.toContain('gone@example.test');
    }
    expect(farewell.text.match(/https?:\/\/\S+/g)).toEqual(['https://homing.example/']);
  });

  it.each(USER_LANGUAGES)('renders both invitations in %s with their link and days, naming neither the inviter nor the address', (language) => {
    const token = 'AbCdEfGhIjKlMnOpQrStUv';
    const data = { invitationId: '019ab1c2-0000-7000-8000-0000000000aa', email: 'invitee@example.test', token, inviterUserId: userId };
    const share = renderer.render({ kind: 'invitation', data: { ...data, invitationKind: 'co-owner' } }, language);
    const transfer = renderer.render({ kind: 'invitation', data: { ...data, invitationKind: 'transfer' } }, language);
    expect(share.subject).toBe(EMAIL_TEXTS[language].mails.invitation.subject);
    expect(transfer.subject).toBe(EMAIL_TEXTS[language].transferInvitation.subject);
    for (const [email, texts] of [[share, EMAIL_TEXTS[language].mails.invitation], [transfer, EMAIL_TEXTS[language].transferInvitation]] as const) {
      expect(email.html).toContain(`<html lang="${language}">`);
      expect(email.text).toContain(`${texts.action}: https://homing.example/invite/${token}`);
      expect(email.text).toContain(texts.outro[0]);
      expect(email.text).toContain(texts.footer);
      expect(email.text).toMatch(/\b7\b/);
      for (const part of [email.subject, email.html, email.text]) {
        expect(part).not.toMatch(/{{|}}/);
        expect(part).not.toContain('invitee@example.test');
        expect(part).not.toContain(userId);
      }
    }
  });

  it('has every text in every language, and texts differ between languages', () => {
    const keys = (language: (typeof USER_LANGUAGES)[number]) => JSON.stringify(Object.keys(EMAIL_TEXTS[language].mails).sort());
    expect(keys('nl')).toBe(keys('en'));
    expect(keys('es')).toBe(keys('en'));
    expect(EMAIL_TEXTS.nl.mails.welcome.subject).not.toBe(EMAIL_TEXTS.en.mails.welcome.subject);
    expect(EMAIL_TEXTS.es.mails.welcome.subject).not.toBe(EMAIL_TEXTS.en.mails.welcome.subject);
  });

  it('escapes hostile values in the HTML part, and keeps them out of links as markup (B3)', () => {
    const hostile = '"><script>alert(1)</script>\r\nBcc: victim@example.test';
    const email = renderer.render({ kind: 'login-code', data: { userId, code: hostile } }, 'en');
    expect(email.html).not.toContain('<script>');
    expect(email.html).toContain('&lt;script&gt;');
    expect(email.html).not.toMatch(/href="[^"]*"><script/);
    // In the link the value is URL-encoded: no quote, angle bracket or line break survives.
    expect(email.text).toContain(`/login/code?code=${encodeURIComponent(hostile)}`);
    const reset = renderer.render({ kind: 'password-reset', data: { userId, token: '<img src=x onerror=alert(1)>' } }, 'nl');
    expect(reset.html).not.toContain('<img');
  });

  it('takes subjects from the texts alone, on one line, whatever the data holds', () => {
    const email = renderer.render({ kind: 'tag-activated', data: { userId, tagCode: 'X\r\nSubject: pwned' } }, 'es');
    expect(email.subject).toBe(EMAIL_TEXTS.es.mails['tag-activated'].subject);
    expect(email.subject).not.toMatch(/[\r\n]/);
    expect(oneLine('a\r\nBcc: x\u0000')).toBe('a Bcc: x');
  });

  it('never inserts values with a triple-stash in the layout', () => {
    expect(HTML_LAYOUT).not.toContain('{{{');
  });

  it.each(USER_LANGUAGES)('links a finder’s mails in %s to their conversation with a resume token', (language) => {
    const conversationId = '019ab1c2-0000-7000-8000-000000000002';
    const reply = renderer.render({ kind: 'owner-reply', data: { conversationId, tagCode: 'ABCD1234EFGH5678' } }, language, { resumeToken: 'resume_Token-1' });
    expect(reply.text).toContain('https://homing.example/found/ABCD-1234-EFGH-5678?resume=resume_Token-1');
    const link = renderer.render({ kind: 'resume-link', data: { conversationId, tagCode: 'ABCD1234EFGH5678' } }, language, { resumeToken: 'resume_Token-2' });
    expect(link.subject).toBe(EMAIL_TEXTS[language].mails['resume-link'].subject);
    expect(link.text).toContain('https://homing.example/found/ABCD-1234-EFGH-5678?resume=resume_Token-2');
    expect(link.text).toContain(EMAIL_TEXTS[language].mails['resume-link'].footer);
  });
  describe('the passkey mails', () => {
    const data = { userId, passkeyId: '019ab1c2-0000-7000-8000-0000000000bb', provider: 'iCloud Keychain', occurredAt: '2026-11-26T10:06:00.000Z' };

    it.each([
      ['en', 'A passkey was added to your Homing account', 'On November 26, 2026 at 11:06 AM GMT+1, a passkey from iCloud Keychain was added', 'Open your account'],
      ['nl', 'Er is een toegangssleutel toegevoegd aan je Homing-account', 'Op 26 november 2026 om 11:06 CET is een toegangssleutel van iCloud Keychain toegevoegd', 'Open je account'],
      ['es', 'Se ha añadido una llave de acceso a tu cuenta de Homing', 'El 26 de noviembre de 2026 a las 11:06 CET se añadió una llave de acceso de iCloud Keychain', 'Abrir tu cuenta'],
    ] as const)('tells the owner in %s which passkey was added and when, what to do if it was not them, linking to the account page', (language, subject, when, action) => {
      const email = renderer.render({ kind: 'passkey-added', data }, language);
      const texts = EMAIL_TEXTS[language].mails['passkey-added'];
      expect(email.subject).toBe(subject);
      expect(email.html).toContain(`<html lang="${language}">`);
      expect(email.text).toContain(when);
      expect(email.html).toContain(when);
      expect(email.text).toContain(texts.outro[0]);
      expect(email.text).toContain(`${action}: https://homing.example/account`);
      expect(email.text).toContain(EMAIL_TEXTS[language].layout.footer);
      for (const part of [email.subject, email.html, email.text]) {
        expect(part).not.toMatch(/{{|}}/);
        expect(part).not.toContain(data.passkeyId);
      }
      expect(email.text.match(/https?:\/\/\S+/g)).toEqual(['https://homing.example/account']);
    });

    it.each([
      ['en', 'A passkey was deleted from your Homing account', 'On November 26, 2026 at 11:06 AM GMT+1, a passkey was deleted'],
      ['nl', 'Er is een toegangssleutel verwijderd uit je Homing-account', 'Op 26 november 2026 om 11:06 CET is een toegangssleutel verwijderd'],
      ['es', 'Se ha eliminado una llave de acceso de tu cuenta de Homing', 'El 26 de noviembre de 2026 a las 11:06 CET se eliminó una llave de acceso de tu cuenta'],
    ] as const)('tells the owner in %s that a passkey was deleted, without a provider when none is known', (language, subject, when) => {
      for (const provider of [null, ' ']) {
        const email = renderer.render({ kind: 'passkey-deleted', data: { ...data, provider } }, language);
        expect(email.subject).toBe(subject);
        expect(email.text).toContain(when);
        expect(email.text).toContain(EMAIL_TEXTS[language].mails['passkey-deleted'].outro[0]);
        expect(email.text).toContain('https://homing.example/account');
        for (const part of [email.subject, email.html, email.text]) expect(part).not.toMatch(/{{|}}/);
      }
      expect(renderer.render({ kind: 'passkey-deleted', data }, language).text).toContain('iCloud Keychain');
    });

    it('escapes the provider’s name in the HTML part and keeps it out of the subject', () => {
      const email = renderer.render({ kind: 'passkey-added', data: { ...data, provider: '<b>Evil</b>\r\nBcc: x@example.test' } }, 'en');
      expect(email.html).not.toContain('<b>Evil');
      expect(email.html).toContain('&lt;b&gt;Evil&lt;/b&gt;');
      expect(email.subject).toBe(EMAIL_TEXTS.en.mails['passkey-added'].subject);
    });
  });

  describe('the scan alert', () => {
    const scanAlert = { kind: 'scan-alert', data: { userId, tagCode: 'ABCD1234EFGH5678', scanId: '019ab1c2-0000-7000-8000-000000000003' } } as const;
    const scan = { code: 'ABCD1234EFGH5678', scannedAt: '2026-11-26T10:06:00.000Z', city: 'Amsterdam', country: 'NL', deviceKind: 'phone' } as const;

    it.each([
      ['en', 'Your lost item’s tag was scanned', 'on November 26, 2026 at 11:06 AM GMT+1, near Amsterdam, Netherlands.', 'Open your item'],
      ['nl', 'Het label van je kwijtgeraakte item is gescand', 'op 26 november 2026 om 11:06 CET, in de buurt van Amsterdam, Nederland.', 'Open je item'],
      ['es', 'Han escaneado la etiqueta de tu objeto perdido', 'el 26 de noviembre de 2026 a las 11:06 CET, cerca de Amsterdam, Países Bajos.', 'Abrir tu objeto'],
    ] as const)('tells the owner in %s when and roughly where their lost item’s tag was scanned, linking to the item page', (language, subject, when, action) => {
      const email = renderer.render(scanAlert, language, { scan });
      const texts = EMAIL_TEXTS[language].mails['scan-alert'];
      expect(email.subject).toBe(subject);
      expect(email.text).toContain('ABCD-1234-EFGH-5678');
      expect(email.text).toContain(when);
      expect(email.html).toContain(when);
      // Through the login page, which sends the owner on to the item page (ec) once logged in.
      expect(email.text).toContain(`${action}: https://homing.example/login?ec=ABCD-1234-EFGH-5678`);
      // Only while lost, and where to turn it off.
      expect(email.text).toContain(texts.outro[0]);
      expect(email.text).toContain(EMAIL_TEXTS[language].layout.footer);
      for (const part of [email.subject, email.html, email.text]) expect(part).not.toMatch(/{{|}}/);
      expect(email.text.match(/https?:\/\/\S+/g)).toEqual(['https://homing.example/login?ec=ABCD-1234-EFGH-5678']);
    });

    it.each(USER_LANGUAGES)('says in %s as much of the place as is known, and that it is unknown when nothing is', (language) => {
      const place = EMAIL_TEXTS[language].scanPlace;
      const country = countryName('ES', language) ?? '';
      const render = (city: string | null, code: string | null) => renderer.render(scanAlert, language, { scan: { ...scan, city, country: code } }).text;
      expect(render('Sevilla', 'ES')).toContain(place.cityAndCountry.replace('{{city}}', 'Sevilla').replace('{{country}}', country));
      expect(render('Sevilla', null)).toContain(place.city.replace('{{city}}', 'Sevilla'));
      expect(render(null, 'ES')).toContain(place.country.replace('{{country}}', country));
      expect(render(null, null)).toContain(place.unknown);
      // A country code that is not one is no place either.
      expect(render(null, 'not a country')).toContain(place.unknown);
    });

    it('escapes the city in the HTML part, and writes times in Amsterdam’s time with the zone named', () => {
      const email = renderer.render(scanAlert, 'en', { scan: { ...scan, city: '<b>Hoorn</b>' } });
      expect(email.html).not.toContain('<b>Hoorn');
      expect(email.html).toContain('&lt;b&gt;Hoorn&lt;/b&gt;');
      expect(formatMailTime('2026-07-01T22:30:00Z', 'nl')).toBe('2 juli 2026 om 00:30 CEST');
      expect(countryName('nl', 'es')).toBe('Países Bajos');
    });

    it('will not render without its scan', () => {
      expect(() => renderer.render(scanAlert, 'en')).toThrow('a scan alert is rendered with its scan');
    });
  });
});
