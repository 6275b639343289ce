import { randomUUID } from 'node:crypto';
import type { InvitationAccepted } from '@homing/contracts';
import { expectEventually, linkIn, type ReceivedMail } from '@homing/testing';
import type { Page } from 'playwright-core';
import { startStack, type Stack } from '../support/stack';
import { chooseLanguage, chromiumForSuite, heading, logIn as logInAt, screenshot, seriousViolations, VIEWPORTS } from './browser';
import { ownerWithItem } from './owners';

// Co-owners and the hand-over of ownership (issue 27) in Chromium against the whole product: the owner invites an
// address from the item page, the invitation's e-mailed link opens /invite/{token}; a new address accepts logged out
// and gets an account as activation makes one, an existing account accepts logged in; each person keeps their own
// notification settings; and the item page (owner's and co-owner's view) and the invite page have no serious
// accessibility violation at 360 and 1280 px in English, Dutch and Spanish.

// Where the web app keeps the push offer's snooze (apps/web/src/features/push/push-subscription.ts).
const PUSH_SNOOZE_KEY = 'homing.push.snoozedUntil';

/** What the screens say in each language, as the locales of apps/web word them. */
const TEXTS = {
  en: {
    itemTitle: 'Edit item',
    sharedTitle: 'Shared item',
    inviteEmail: 'E-mail address to invite',
    invite: 'Invite',
    invitationSent: (email: string) => `Invitation sent to ${email}.`,
    inviteTitle: (name: string) => `You are invited to share “${name}” on Homing`,
    accept: 'Accept',
    setPassword: 'Set a password',
    finish: 'Finish',
    welcome: 'Welcome to Homing',
    myItems: 'My items',
    sharedWithYou: 'Shared with you',
    shared: 'Shared',
    coOwner: 'Co-owner',
    emailSwitch: 'E-mail me about this item',
  },
  nl: {
    itemTitle: 'Voorwerp bewerken',
    sharedTitle: 'Gedeeld voorwerp',
    inviteEmail: 'E-mailadres om uit te nodigen',
    invite: 'Uitnodigen',
    invitationSent: (email: string) => `Uitnodiging verstuurd naar ${email}.`,
    inviteTitle: (name: string) => `Je bent uitgenodigd om „${name}” te delen op Homing`,
    accept: 'Accepteren',
    setPassword: 'Stel een wachtwoord in',
    finish: 'Afronden',
    welcome: 'Welkom bij Homing',
    myItems: 'Mijn spullen',
    sharedWithYou: 'Gedeeld met jou',
    shared: 'Gedeeld',
    coOwner: 'Mede-eigenaar',
    emailSwitch: 'Mail me over dit voorwerp',
  },
  es: {
    itemTitle: 'Editar objeto',
    sharedTitle: 'Objeto compartido',
    inviteEmail: 'Correo electrónico a invitar',
    invite: 'Invitar',
    invitationSent: (email: string) => `Invitación enviada a ${email}.`,
    inviteTitle: (name: string) => `Te han invitado a compartir «${name}» en Homing`,
    accept: 'Aceptar',
    setPassword: 'Elige una contraseña',
    finish: 'Terminar',
    welcome: 'Bienvenido a Homing',
    myItems: 'Mis objetos',
    sharedWithYou: 'Compartido contigo',
    shared: 'Compartido',
    coOwner: 'Copropietario',
    emailSwitch: 'Avisarme por correo sobre este objeto',
  },
} as const;
type Language = keyof typeof TEXTS;
const LANGUAGES = Object.keys(TEXTS) as Language[];

describe('co-owners in a browser', () => {
  let stack: Stack;
  // Links in e-mails start with notifications' PUBLIC_URL; the browser opens their path on the stack.
  const publicUrl = 'https://homing.co-owners';
  const invitePrefix = `${publicUrl}/invite/`;

  beforeAll(async () => {
    stack = await startStack({ env: { gateway: { TRUSTED_PROXIES: '127.0.0.1,::1' }, notifications: { PUBLIC_URL: publicUrl } } });
  });

  afterAll(() => stack?.stop());

  const { openPage } = chromiumForSuite();
  const url = (path: string) => `${stack.base}${path}`;
  const opened = (link: string) => {
    const parsed = new URL(link);
    return url(`${parsed.pathname}${parsed.search}`);
  };
  const newAddress = (who: string) => `${who}-${randomUUID()}@example.test`;
  const itemName = () => `Bike ${randomUUID().slice(0, 6)}`;

  async function api<T = unknown>(method: string, path: string, options: { token?: string; body?: unknown } = {}): Promise<{ status: number; body: T }> {
    const response = await fetch(`${stack.api}${path}`, {
      method,
      headers: {
        'x-forwarded-for': `10.205.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`,
        ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
        ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
    });
    const text = await response.text();
    return { status: response.status, body: (text ? JSON.parse(text) : undefined) as T };
  }

  function mailWithLink(email: string, prefix: string): Promise<ReceivedMail> {
    return expectEventually(
      () => {
        const mail = stack.mail.mailsTo(email).find((received) => received.text.includes(prefix));
        if (!mail) throw new Error(`no e-mail to ${email} with a link ${prefix}…`);
        return mail;
      },
      { timeoutMs: 30_000 },
    );
  }

  /** A page in a fresh browser, the push offer snoozed (it would cover what these tests click). */
  async function freshPage(options: Parameters<typeof openPage>[0] = {}): Promise<Page> {
    const page = await openPage(options);
    await page.addInitScript(`localStorage.setItem(${JSON.stringify(PUSH_SNOOZE_KEY)}, String(Date.now() + 3600000))`);
    return page;
  }

  async function loggedInPage(user: { email: string; password: string }, options: Parameters<typeof openPage>[0] = {}): Promise<Page> {
    const page = await freshPage(options);
    await logInAt(page, stack.base, user);
    return page;
  }


  /** The owner invites `email` from the item page, in `language`; the invitation's link from the e-mail. */
  async function inviteFromItemPage(page: Page, code: string, email: string, language: Language): Promise<string> {
    const texts = TEXTS[language];
    await page.goto(url(`/item/${code}`));
    await chooseLanguage(page, language);
    await heading(page, texts.itemTitle);
    await page.getByLabel(texts.inviteEmail).fill(email);
    await page.getByRole('button', { name: texts.invite, exact: true }).click();
    await page.getByTestId('flash').getByText(texts.invitationSent(email)).waitFor();
    // The open invitation joins the list of people.
    await page.locator('.item-people__list').getByText(email).waitFor();
    return opened(linkIn(await mailWithLink(email, invitePrefix), invitePrefix));
  }

  const cardOf = (page: Page, name: string) => page.locator('.item-card', { hasText: name });

  it.each(LANGUAGES)('lets a new address accept logged out, get an account as activation makes one, and find the item shared in My items (%s)', async (language) => {
    const texts = TEXTS[language];
    const name = itemName();
    const owner = await ownerWithItem(stack, name);
    const ownerPage = await loggedInPage(owner);
    const invited = newAddress('invited');
    const link = await inviteFromItemPage(ownerPage, owner.code, invited, language);

    const page = await freshPage();
    await page.goto(link);
    await chooseLanguage(page, language);
    await heading(page, texts.inviteTitle(name));
    await page.getByText(invited).waitFor();
    await page.getByRole('button', { name: texts.accept }).click();
    // As activation: logged in with the login token, a password offered (left empty here), then welcome.
    await heading(page, texts.setPassword);
    await page.getByRole('button', { name: texts.finish }).click();
    await heading(page, texts.welcome);
    await page.getByRole('link', { name: texts.myItems }).last().click();
    await heading(page, texts.myItems);
    await cardOf(page, name).getByText(texts.sharedWithYou, { exact: true }).waitFor();

    // The owner sees the item shared, and the new co-owner among its people.
    await ownerPage.goto(url('/items'));
    await heading(ownerPage, texts.myItems);
    await cardOf(ownerPage, name).getByText(texts.shared, { exact: true }).waitFor();
    await ownerPage.goto(url(`/item/${owner.code}`));
    const row = ownerPage.locator('.item-people__row', { hasText: invited });
    await row.getByText(texts.coOwner).waitFor();

    // The link is spent.
    expect((await api('GET', `/invitations/${new URL(link).pathname.split('/').pop()}`)).status).toBe(422);
  });

  it.each(LANGUAGES)('lets an existing account accept logged in, and keeps the co-owner’s own e-mail setting after a reload (%s)', async (language) => {
    const texts = TEXTS[language];
    const name = itemName();
    const owner = await ownerWithItem(stack, name);
    const partner = await ownerWithItem(stack, itemName());
    const ownerPage = await loggedInPage(owner);
    const link = await inviteFromItemPage(ownerPage, owner.code, partner.email, language);

    const page = await loggedInPage(partner);
    await chooseLanguage(page, language);
    await page.goto(link);
    await heading(page, texts.inviteTitle(name));
    await page.getByRole('button', { name: texts.accept }).click();
    await page.waitForURL(url(`/item/${owner.code}`));
    await heading(page, texts.sharedTitle);

    const emailSwitch = page.getByRole('checkbox', { name: texts.emailSwitch });
    expect(await emailSwitch.isChecked()).toBe(true);
    await Promise.all([
      page.waitForResponse((response) => response.request().method() === 'PATCH' && response.url().endsWith(`/user/items/${owner.code}/notifications`) && response.ok()),
      emailSwitch.uncheck(),
    ]);
    await page.reload();
    await heading(page, texts.sharedTitle);
    await page.getByRole('checkbox', { name: texts.emailSwitch }).waitFor();
    expect(await page.getByRole('checkbox', { name: texts.emailSwitch }).isChecked()).toBe(false);

    // The setting is the co-owner's own: the owner's stays on.
    expect((await api<{ email: boolean }>('GET', `/user/items/${owner.code}/notifications`, { token: partner.token })).body.email).toBe(false);
    expect((await api<{ email: boolean }>('GET', `/user/items/${owner.code}/notifications`, { token: owner.token })).body.email).toBe(true);
    await ownerPage.reload();
    await heading(ownerPage, texts.itemTitle);
    expect(await ownerPage.getByRole('checkbox', { name: texts.emailSwitch }).isChecked()).toBe(true);
  });

  // One viewport a test: nine screens with axe each take their time.
  it.each(Object.keys(VIEWPORTS) as Array<keyof typeof VIEWPORTS>)(
    'has no serious accessibility violation on the item page (owner and co-owner) and the invite page, in en, nl and es (%s)',
    async (viewport) => {
      const name = itemName();
      const owner = await ownerWithItem(stack, name);
      const partner = await ownerWithItem(stack, itemName());
      // The partner shares the item (through the API), and another address has an open invitation.
      expect((await api('POST', `/user/items/${owner.code}/co-owners`, { token: owner.token, body: { email: partner.email } })).status).toBe(201);
      const partnerToken = linkIn(await mailWithLink(partner.email, invitePrefix), invitePrefix).slice(invitePrefix.length);
      const accepted = await api<InvitationAccepted>('POST', `/invitations/${partnerToken}/accept`, { token: partner.token });
      expect(accepted.status).toBe(200);
      const invited = newAddress('invited');
      expect((await api('POST', `/user/items/${owner.code}/co-owners`, { token: owner.token, body: { email: invited } })).status).toBe(201);
      const inviteLink = opened(linkIn(await mailWithLink(invited, invitePrefix), invitePrefix));

      const ownerPage = await loggedInPage(owner, { viewport });
      const partnerPage = await loggedInPage(partner, { viewport });
      const invitePage = await freshPage({ viewport });
      const violations: string[] = [];
      for (const language of LANGUAGES) {
        const texts = TEXTS[language];
        const screens: Array<[string, Page, string, (page: Page) => Promise<void>]> = [
          ['item-page-owner', ownerPage, `/item/${owner.code}`, (shown) => shown.locator('.item-people__list').getByText(partner.email).waitFor()],
          ['item-page-co-owner', partnerPage, `/item/${owner.code}`, (shown) => shown.locator('.item-people__list').getByText(owner.email).waitFor()],
          ['invite-page', invitePage, new URL(inviteLink).pathname, (shown) => heading(shown, texts.inviteTitle(name))],
        ];
        for (const [screenName, shown, path, ready] of screens) {
          await shown.goto(url(path));
          await chooseLanguage(shown, language);
          if (screenName === 'item-page-owner') await heading(shown, texts.itemTitle);
          if (screenName === 'item-page-co-owner') await heading(shown, texts.sharedTitle);
          await ready(shown);
          await shown.getByRole('checkbox').first().or(shown.getByRole('button', { name: texts.accept })).waitFor();
          violations.push(...(await seriousViolations(shown)).map((violation) => `${screenName}-${language} (${viewport}): ${violation}`));
          const width = await shown.evaluate<number>('document.documentElement.scrollWidth');
          if (width > VIEWPORTS[viewport].width) violations.push(`${screenName}-${language} (${viewport}): ${width} px wide, wider than the screen`);
          await screenshot(shown, `co-owners-${screenName}-${language}-${VIEWPORTS[viewport].width}`);
        }
      }
      expect(violations).toEqual([]);
    },
    300_000,
  );
});
