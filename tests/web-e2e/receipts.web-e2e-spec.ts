import type { Page } from 'playwright-core';
import { expectEventually } from '@homing/testing';
import { startStack, type Stack } from '../support/stack';
import { appTookOver, checkAtBothSizes, chooseLanguage, chromiumForSuite, logIn as logInAt, pushReadyPage, waitWhileActive } from './browser';
import { newItem, ownerWithItem } from './owners';

// Receipts in two browsers against the whole product: the finder sees "Delivered" under their message once the owner
// was told (by e-mail at once: this owner has no push subscription) and "Read" once the owner opened the thread; the
// owner sees "Read" under a reply once the finder opened their conversation. Both pages update by their polls.
// An owner whose browser takes pushes is pushed at once and e-mailed only about a message still unread after
// OWNER_EMAIL_DELAY_MINUTES (a quarter of a minute here).

/** What the screens say in each language, as the locales of apps/web word it. */
const TEXTS = {
  en: { message: 'Message', sendFirst: 'Send to the owner', sendReply: 'Send reply', messages: 'Messages', pushTitle: 'Get notified of new messages?', pushDecline: 'Not now', delivered: 'Delivered', read: 'Read' },
  nl: { message: 'Bericht', sendFirst: 'Verstuur naar de eigenaar', sendReply: 'Antwoord versturen', messages: 'Berichten', pushTitle: 'Meldingen krijgen van nieuwe berichten?', pushDecline: 'Niet nu', delivered: 'Bezorgd', read: 'Gelezen' },
  es: { message: 'Mensaje', sendFirst: 'Enviar al propietario', sendReply: 'Enviar respuesta', messages: 'Mensajes', pushTitle: '¿Quieres recibir avisos de nuevos mensajes?', pushDecline: 'Ahora no', delivered: 'Entregado', read: 'Leído' },
} as const;
type Language = keyof typeof TEXTS;

describe('message receipts in two browsers', () => {
  const DELAY_MINUTES = 0.25;
  let stack: Stack;

  beforeAll(async () => {
    stack = await startStack({ env: { gateway: { TRUSTED_PROXIES: '127.0.0.1,::1' }, notifications: { OWNER_EMAIL_DELAY_MINUTES: String(DELAY_MINUTES) } } });
  });

  afterAll(() => stack?.stop());

  const { openContext, openPage } = chromiumForSuite({ push: true });
  const url = (path: string) => `${stack.base}${path}`;

  /** A finder's first message about an item, written from their own client address. */
  async function finderWrites(code: string, content: string) {
    const headers = { 'content-type': 'application/json', 'x-forwarded-for': `10.204.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}` };
    const written = await fetch(`${stack.api}/items/${code}/messages`, { method: 'POST', headers, body: JSON.stringify({ content }) });
    expect(written.status).toBe(201);
  }


  async function declinePush(page: Page, language: Language) {
    const offer = page.getByRole('dialog', { name: TEXTS[language].pushTitle });
    await offer.getByRole('button', { name: TEXTS[language].pushDecline }).click();
    await offer.waitFor({ state: 'detached' });
  }


  const bubble = (page: Page, language: Language, text: string) => page.getByRole('list', { name: TEXTS[language].messages }).getByRole('listitem').filter({ hasText: text });

  async function walk(language: Language, violations: string[]) {
    const texts = TEXTS[language];
    const owner = await ownerWithItem(stack, 'Backpack');
    const finder = await openPage({ viewport: 'phone' });
    await finder.goto(url(`/found/${owner.code}`));
    // The app takes the server-rendered page over before anyone types: a click on the server's form before the
    // app runs posts it without script (the no-JS journey), which is another test's.
    await appTookOver(finder);
    await chooseLanguage(finder, language);
    await finder.getByLabel(texts.message, { exact: true }).fill('I found your backpack');
    await finder.getByRole('button', { name: texts.sendFirst }).click();
    await finder.getByRole('button', { name: texts.sendReply }).waitFor();
    await declinePush(finder, language);
    const sent = bubble(finder, language, 'I found your backpack');
    await sent.waitFor();

    // The owner has no push subscription: the e-mail goes at once, and the receipt follows.
    await waitWhileActive(finder, sent.getByText(texts.delivered, { exact: true }));
    expect(await sent.getByText(texts.read, { exact: true }).count()).toBe(0);
    await checkAtBothSizes(finder, `receipts-finder-delivered-${language}`, violations);

    const ownerPage = await openPage({ viewport: 'desktop' });
    await logInAt(ownerPage, stack.base, owner);
    await chooseLanguage(ownerPage, language);
    await ownerPage.goto(url(`/found/${owner.code}`));
    await bubble(ownerPage, language, 'I found your backpack').waitFor();
    await declinePush(ownerPage, language);
    // The owner opened the thread: the finder's page shows "Read" in place of "Delivered".
    await waitWhileActive(finder, sent.getByText(texts.read, { exact: true }));
    expect(await sent.getByText(texts.delivered, { exact: true }).count()).toBe(0);
    await checkAtBothSizes(finder, `receipts-finder-read-${language}`, violations);

    // The finder is elsewhere while the owner replies; the reply says nothing until they open their conversation.
    await finder.goto(url('/'));
    await ownerPage.getByLabel(texts.message, { exact: true }).fill('Thank you! I can pick it up at 5.');
    await ownerPage.getByRole('button', { name: texts.sendReply }).click();
    const reply = bubble(ownerPage, language, 'Thank you! I can pick it up at 5.');
    await reply.waitFor();
    expect(await reply.getByText(texts.read, { exact: true }).count()).toBe(0);
    await finder.goto(url(`/found/${owner.code}`));
    await bubble(finder, language, 'Thank you! I can pick it up at 5.').waitFor();
    await waitWhileActive(ownerPage, reply.getByText(texts.read, { exact: true }));
    // The owner's own page never says "Delivered", and the finder's message is not the owner's to label.
    expect(await ownerPage.getByText(texts.delivered, { exact: true }).count()).toBe(0);
    expect(await bubble(ownerPage, language, 'I found your backpack').getByText(texts.read, { exact: true }).count()).toBe(0);
    await checkAtBothSizes(ownerPage, `receipts-owner-read-${language}`, violations);
  }


  it.each(Object.keys(TEXTS) as Language[])('shows the finder "delivered" then "read", and the owner "read" on a reply, in %s, accessibly at 360 and 1280 px', async (language) => {
    const violations: string[] = [];
    await walk(language, violations);
    expect(violations).toEqual([]);
  });

  it('pushes an owner whose browser takes pushes at once, and e-mails them only about the message left unread past the delay', async () => {
    const owner = await ownerWithItem(stack, 'Backpack');
    const readSoon = await newItem(stack, owner.token, 'Keys');
    const leftUnread = await newItem(stack, owner.token, 'Bike');
    const since = new Date();
    const newMessageMails = () => stack.mail.mailsTo(owner.email).filter((mail) => mail.subject === 'Someone wrote about your lost item');
    const mailsAbout = (code: string) => newMessageMails().filter((mail) => mail.text.includes(code));

    // The owner turns push on in their browser, on the thread of a first message (e-mailed at once: no push yet).
    await finderWrites(owner.code, 'Is this your backpack?');
    await expectEventually(() => expect(mailsAbout(owner.code)).toHaveLength(1));
    const subscription = stack.push.subscribe();
    const ownerPage = await pushReadyPage(openContext, stack.base, subscription);
    await logInAt(ownerPage, stack.base, owner);
    await ownerPage.goto(url(`/found/${owner.code}`));
    await bubble(ownerPage, 'en', 'Is this your backpack?').waitFor();
    await ownerPage.evaluate('navigator.serviceWorker.ready.then(() => true)');
    await ownerPage.getByRole('dialog', { name: TEXTS.en.pushTitle }).getByRole('button', { name: 'Yes, notify me' }).click();
    await ownerPage.getByText('Notifications are on for this device.').waitFor();

    // Two finders write about two other items: both pushed at once, neither e-mailed yet.
    await finderWrites(readSoon, 'I have your keys');
    await finderWrites(leftUnread, 'Your bike is at the station');
    await stack.push.waitForPushes(subscription, 2, 20_000);
    expect(mailsAbout(readSoon)).toHaveLength(0);
    expect(mailsAbout(leftUnread)).toHaveLength(0);

    // The owner reads one of them within the delay; the other stays unread.
    await ownerPage.goto(url(`/found/${readSoon}`));
    await bubble(ownerPage, 'en', 'I have your keys').waitFor();

    // Past the delay: the unread one is e-mailed, the read one was skipped and never is.
    const [mail] = await expectEventually(
      () => {
        const mails = mailsAbout(leftUnread);
        if (mails.length === 0) throw new Error('no e-mail about the unread message yet');
        return mails;
      },
      { timeoutMs: DELAY_MINUTES * 60_000 + 30_000 },
    );
    expect(mail.text).toContain(`/login?c=${leftUnread}`);
    await expectEventually(
      async () => {
        const skipped = await stack.db.query(
          `SELECT count(*)::int AS n FROM "${stack.schemaOf('notifications')}".deliveries WHERE status = 'skipped' AND created_at >= $1`,
          [since],
        );
        expect(skipped.rows[0].n).toBe(1);
      },
      { timeoutMs: 30_000 },
    );
    expect(mailsAbout(readSoon)).toHaveLength(0);
    expect(mailsAbout(leftUnread)).toHaveLength(1);
  });
});
