import { randomUUID } from 'node:crypto';
import type { Page } from 'playwright-core';
import { expectEventually, linkIn } from '@homing/testing';
import { startStack, type Stack } from '../support/stack';
import { appTookOver, chromiumForSuite, heading, logIn as logInAt, screenshot, seriousViolations, VIEWPORTS, FINDER_PAGE_CODE } from './browser';
import { ownerWithItem } from './owners';

// A finder's journeys across browsers in Chromium against the whole product: a Spanish finder writes, the owner
// replies, the finder's e-mail is Spanish and its link opens the conversation in a browser that never wrote.

/** The finder page's words in each language, as the locales of apps/web have them. */
const TEXTS = {
  en: {
    finderTitle: "You found someone's item",
    message: 'Message',
    finderEmail: 'Your e-mail (optional)',
    sendFirst: 'Send to the owner',
    sendReply: 'Send reply',
    messages: 'Messages',
    pushTitle: 'Get notified of new messages?',
    pushDecline: 'Not now',
    askLink: 'Already wrote to the owner? Get a link to your conversation',
    linkEmail: 'The e-mail address you wrote with',
    expired: 'This link to your conversation has expired. Ask for a new one below with the e-mail address you wrote with.',
  },
  nl: {
    finderTitle: 'Je hebt andermans voorwerp gevonden',
    message: 'Bericht',
    finderEmail: 'Je e-mailadres (optioneel)',
    sendFirst: 'Verstuur naar de eigenaar',
    sendReply: 'Antwoord versturen',
    messages: 'Berichten',
    pushTitle: 'Meldingen krijgen van nieuwe berichten?',
    pushDecline: 'Niet nu',
    askLink: 'Al naar de eigenaar geschreven? Vraag een link naar je gesprek',
    linkEmail: 'Het e-mailadres waarmee je schreef',
    expired: 'Deze link naar je gesprek is verlopen. Vraag hieronder een nieuwe aan met het e-mailadres waarmee je schreef.',
  },
  es: {
    finderTitle: 'Has encontrado un objeto de otra persona',
    message: 'Mensaje',
    finderEmail: 'Tu correo electrónico (opcional)',
    sendFirst: 'Enviar al propietario',
    sendReply: 'Enviar respuesta',
    messages: 'Mensajes',
    pushTitle: '¿Quieres recibir avisos de nuevos mensajes?',
    pushDecline: 'Ahora no',
    askLink: '¿Ya escribiste al propietario? Recibe un enlace a tu conversación',
    linkEmail: 'La dirección de correo con la que escribiste',
    expired: 'Este enlace a tu conversación ha caducado. Pide uno nuevo abajo con la dirección de correo con la que escribiste.',
  },
} as const;
type Language = keyof typeof TEXTS;
// What e-mailed links start with; the test opens their path and query on the stack's gateway.
const PUBLIC_URL = 'https://homing.e2e';
const LOCALES: Record<Language, string> = { en: 'en-GB', nl: 'nl-NL', es: 'es-ES' };

describe('a finder’s journeys across browsers', () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await startStack({ env: { gateway: { TRUSTED_PROXIES: '127.0.0.1,::1' }, notifications: { PUBLIC_URL: PUBLIC_URL } } });
  });

  afterAll(() => stack?.stop());

  const { openPage } = chromiumForSuite();
  const url = (path: string) => `${stack.base}${path}`;

  async function declinePush(page: Page, language: Language) {
    const offer = page.getByRole('dialog', { name: TEXTS[language].pushTitle });
    await offer.getByRole('button', { name: TEXTS[language].pushDecline }).click();
    await offer.waitFor({ state: 'detached' });
  }

  it('e-mails a Spanish finder the owner’s reply in Spanish, and its link opens their conversation in another browser', async () => {
    const es = TEXTS.es;
    const user = await ownerWithItem(stack, 'Mochila azul');
    const { code } = user;

    // The pages that meet the push offer run in the full browser, which has the Push API.
    const finder = await openPage({ viewport: 'phone', locale: LOCALES.es, push: true });
    await finder.goto(url(`/found/${code}`));
    await heading(finder, es.finderTitle);
    // The app takes the server-rendered page over before anyone types: a click on the server's form before the
    // app runs posts it without script (the no-JS journey), which is another test's.
    await appTookOver(finder);
    const finderEmail = `finder-${randomUUID()}@example.test`;
    await finder.getByLabel(es.message, { exact: true }).fill('Encontré tu mochila en la estación');
    await finder.getByLabel(es.finderEmail).fill(finderEmail);
    await finder.getByRole('button', { name: es.sendFirst }).click();
    await finder.getByRole('button', { name: es.sendReply }).waitFor();
    await declinePush(finder, 'es');

    const owner = await openPage({ push: true });
    await logInAt(owner, stack.base, user);
    await owner.goto(url(`/found/${code}`));
    await owner.getByText('Encontré tu mochila en la estación').waitFor();
    await declinePush(owner, 'en');
    await owner.getByLabel(TEXTS.en.message, { exact: true }).fill('Thank you! I will pick it up at five.');
    await owner.getByRole('button', { name: TEXTS.en.sendReply }).click();
    await owner.getByText('Thank you! I will pick it up at five.').waitFor();

    // The reply reaches the finder's mailbox in Spanish, with a link to their conversation.
    const [mail] = await stack.mail.waitForMails(finderEmail, 1, 30_000);
    expect(mail.subject).toBe('El dueño respondió a tu mensaje');
    expect(mail.text).toContain('Tu dirección de correo nunca se muestra al dueño.');
    const link = new URL(linkIn(mail, `${PUBLIC_URL}/found/${code}?resume=`));
    expect(link.searchParams.get('resume')).toMatch(/^[A-Za-z0-9_-]{22}$/);

    // A browser that never wrote opens the link: the conversation is there, and the link leaves the address bar.
    const elsewhere = await openPage({ locale: LOCALES.es, push: true });
    await elsewhere.goto(url(`${link.pathname}${link.search}`));
    const thread = elsewhere.getByRole('list', { name: es.messages });
    await thread.getByText('Encontré tu mochila en la estación').waitFor();
    await thread.getByText('Thank you! I will pick it up at five.').waitFor();
    await expectEventually(() => expect(new URL(elsewhere.url()).search).toBe(''));
    // It writes into the same conversation: the owner reads it beside the first message, and the phone still works.
    await declinePush(elsewhere, 'es');
    await elsewhere.getByLabel(es.message, { exact: true }).fill('Perfecto, hasta luego');
    await elsewhere.getByRole('button', { name: es.sendReply }).click();
    await finder.getByRole('list', { name: es.messages }).getByText('Perfecto, hasta luego').waitFor({ timeout: 15_000 });
    await owner.getByText('Perfecto, hasta luego').waitFor({ timeout: 15_000 });
    expect(await owner.getByText(/Finder 2|Vinder 2|Persona 2/).count()).toBe(0);
    await screenshot(elsewhere, 'finder-resumed-es-1280');
  });

  it('says an expired link has expired and sends a fresh one to the address the finder wrote with', async () => {
    const { code } = await ownerWithItem(stack, 'Llaves');
    const finderEmail = `finder-${randomUUID()}@example.test`;
    const first = await fetch(`${stack.api}/items/${code}/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-language': 'nl', 'x-forwarded-for': '10.204.0.1' },
      body: JSON.stringify({ content: 'Ik heb je sleutels' }),
    });
    const { finder_token: finderToken } = (await first.json()) as { finder_token: string };
    await fetch(`${stack.api}/items/${code}/set-finder`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-finder-token': finderToken, 'x-forwarded-for': '10.204.0.1' },
      body: JSON.stringify({ email: finderEmail }),
    });

    const page = await openPage({ viewport: 'phone', locale: LOCALES.nl });
    await page.goto(url(`/found/${code}?resume=AAAAAAAAAAAAAAAAAAAAAA`));
    await page.getByText(TEXTS.nl.expired).waitFor();
    await page.getByLabel(TEXTS.nl.linkEmail).fill(finderEmail);
    await page.getByRole('button', { name: 'Stuur me de link' }).click();
    await page.getByText(/er een link naar je gesprek onderweg/).waitFor();

    // In the finder's language (Dutch, as they wrote), with a link that works.
    const [mail] = await stack.mail.waitForMails(finderEmail, 1, 30_000);
    expect(mail.subject).toBe('De link naar je gesprek op Homing');
    const link = new URL(linkIn(mail, `${PUBLIC_URL}/found/${code}?resume=`));
    await page.goto(url(`${link.pathname}${link.search}`));
    await page.getByRole('list', { name: TEXTS.nl.messages }).getByText('Ik heb je sleutels').waitFor();
  });

  // One test per language: axe on a loaded machine takes a while for each page.
  it('keeps the resume-link request unfolded when the finder unfolded it before the app took over the prerendered page', async () => {
    const { code } = await ownerWithItem(stack, 'Sjaal');
    const page = await openPage({ viewport: 'phone', locale: LOCALES.nl });
    // The app's code is held back (a slow phone) while the finder unfolds the request on the prerendered page.
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route(FINDER_PAGE_CODE, async (route) => {
      await held;
      await route.continue();
    });
    await page.goto(url(`/found/${code}`), { waitUntil: 'commit' });
    // (Not until `load`: the held script is the page's own, which the load event waits for.)
    // The gateway renders the page in the browser's language already.
    await heading(page, TEXTS.nl.finderTitle);
    await page.getByText(TEXTS.nl.askLink).click();
    release();
    // The app takes over in Dutch, the request still unfolded: its e-mail field is there to fill in.
    await heading(page, TEXTS.nl.finderTitle);
    await page.getByLabel(TEXTS.nl.linkEmail).waitFor();
    expect(await page.getByLabel(TEXTS.nl.linkEmail).isVisible()).toBe(true);
  });

  it.each(Object.keys(TEXTS) as Language[])(
    'has no serious accessibility violation on the changed finder page and fits a 360 px phone, in %s, at 360 and 1280 px',
    async (language) => {
      const texts = TEXTS[language];
      const { code } = await ownerWithItem(stack, 'Paraplu');
      const violations: string[] = [];
      for (const viewport of Object.keys(VIEWPORTS) as Array<keyof typeof VIEWPORTS>) {
        const check = async (page: Page, name: string) => {
          violations.push(...(await seriousViolations(page)).map((violation) => `${name} (${viewport}): ${violation}`));
          const width = await page.evaluate<number>('document.documentElement.scrollWidth');
          if (width > VIEWPORTS[viewport].width) violations.push(`${name} (${viewport}): ${width} px wide, wider than the screen`);
          await screenshot(page, `${name}-${VIEWPORTS[viewport].width}`);
        };
        // The finder page with the request for a link unfolded.
        const page = await openPage({ viewport, locale: LOCALES[language] });
        await page.goto(url(`/found/${code}`));
        await heading(page, texts.finderTitle);
        await page.getByText(texts.askLink).click();
        await page.getByLabel(texts.linkEmail).waitFor();
        await check(page, `finder-resume-request-${language}`);
        // A link that has expired.
        await page.goto(url(`/found/${code}?resume=AAAAAAAAAAAAAAAAAAAAAA`));
        await page.getByText(texts.expired).waitFor();
        await check(page, `finder-resume-expired-${language}`);
      }
      expect(violations).toEqual([]);
    },
    240_000,
  );
});
