import { randomUUID } from 'node:crypto';
import { expectEventually, linkIn, runServiceCommand, type ReceivedMail } from '@homing/testing';
import type { ClaimResponse } from '@homing/contracts';
import type { Page } from 'playwright-core';
import { startStack, type Stack } from '../support/stack';
import { chromiumForSuite, heading, screenshot, seriousViolations, VIEWPORTS } from './browser';
import { untilMessagingKnows } from './owners';

// How an owner gets in, in Chromium against the whole product: the links of their e-mails lead to the thread through
// every way of logging in, the finder page offers them a login, the e-mail screens count down a spent budget, and
// the screens this touches have no serious accessibility violation in any language at phone and desktop widths.

/** The screens' headings in each language, as the locales of apps/web word them. */
const TEXTS = {
  en: { login: 'Log in', loginEmail: 'Log in with e-mail', loginCode: 'Enter your login code', forgot: 'Forgot your password?', done: 'Your tag is activated', activate: 'Activate your tag', confirm: 'Is this your e-mail address?', reset: 'Reset your password', finder: "You found someone's item", ownerLogin: 'Is this your item? Log in', forgotLink: 'Ask for a new link' },
  nl: { login: 'Inloggen', loginEmail: 'Inloggen met e-mail', loginCode: 'Vul je inlogcode in', forgot: 'Wachtwoord vergeten?', done: 'Je label is geactiveerd', activate: 'Activeer je label', confirm: 'Is dit je e-mailadres?', reset: 'Stel een nieuw wachtwoord in', finder: 'Je hebt andermans voorwerp gevonden', ownerLogin: 'Is dit jouw voorwerp? Log in', forgotLink: 'Vraag een nieuwe link aan' },
  es: { login: 'Iniciar sesión', loginEmail: 'Iniciar sesión por correo', loginCode: 'Introduce tu código de acceso', forgot: '¿Has olvidado tu contraseña?', done: 'Tu etiqueta está activada', activate: 'Activa tu etiqueta', confirm: '¿Es este tu correo electrónico?', reset: 'Restablece tu contraseña', finder: 'Has encontrado un objeto de otra persona', ownerLogin: '¿Es tuyo este objeto? Inicia sesión', forgotLink: 'Pedir un enlace nuevo' },
} as const;
type Language = keyof typeof TEXTS;

describe('owners’ ways in, in a browser', () => {
  let stack: Stack;
  let tags: string[] = [];
  const unclaimedTag = () => {
    const tag = tags.shift();
    if (!tag) throw new Error('the suite minted too few tags');
    return tag;
  };
  // Links in e-mails start with notifications' PUBLIC_URL; the browser opens their path on the stack.
  const publicUrl = 'https://homing.owner-journeys';

  beforeAll(async () => {
    stack = await startStack({
      env: { gateway: { TRUSTED_PROXIES: '127.0.0.1,::1' }, notifications: { PUBLIC_URL: publicUrl } },
      beforeStart: async ({ envOf }) => {
        tags = (await runServiceCommand('items', ['seed-tags', '--count', '12'], envOf('items'))).trim().split('\n');
      },
    });
  });

  afterAll(() => stack?.stop());

  const { openPage } = chromiumForSuite();
  const url = (path: string) => `${stack.base}${path}`;
  const opened = (link: string) => {
    const parsed = new URL(link);
    return url(`${parsed.pathname}${parsed.search}`);
  };

  async function api<T = unknown>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
    const response = await fetch(`${stack.api}${path}`, {
      method,
      headers: { 'x-forwarded-for': `10.203.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: (text ? JSON.parse(text) : undefined) as T };
  }

  /** An owner as activation makes one, with a password set at activation, and their tag. */
  async function owner() {
    const tag = unclaimedTag();
    const email = `owner-${randomUUID()}@example.test`;
    const password = `pw-${randomUUID()}`;
    const claimed = await api<ClaimResponse>('POST', '/claim', { code: tag, email });
    if (claimed.body.response_code !== 'NEW_USER_REGISTERED') throw new Error(`claim answered ${JSON.stringify(claimed.body)}`);
    const set = await api<{ token: string }>('POST', '/user/password', { token: claimed.body.password_token, password });
    expect(set.status).toBe(200);
    await untilMessagingKnows(stack, set.body.token, tag);
    return { email, password, tag };
  }

  /** A new finder's first message about the tag (a new conversation: the owner is mailed). */
  async function finderWrites(tag: string) {
    expect((await api('POST', `/items/${tag}/messages`, { content: `Found it ${randomUUID().slice(0, 6)}` })).status).toBe(201);
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

  /** The owner's thread on the found page. */
  /** The owner's thread offers push once its messages load: snoozed, so its dialog covers nothing these tests click. */
  async function snoozePushOffer(page: Page) {
    await page.context().addInitScript(`localStorage.setItem('homing.push.snoozedUntil', String(Date.now() + 3600000))`);
  }

  async function onThread(page: Page, tag: string) {
    await page.waitForURL(url(`/found/${tag}`));
    await page.locator('.found--owner').waitFor();
  }

  it('takes a logged-out owner from the new-message e-mail to the thread, through a password login', async () => {
    const { email, password, tag } = await owner();
    await finderWrites(tag);
    const link = linkIn(await mailWithLink(email, `${publicUrl}/login?c=`), `${publicUrl}/login?c=`);

    const page = await openPage();
    await snoozePushOffer(page);
    await page.goto(opened(link));
    await heading(page, 'Log in');
    await page.getByLabel('E-mail').fill(email);
    await page.getByLabel('Password', { exact: true }).fill(password);
    await page.getByRole('button', { name: 'Log in', exact: true }).click();
    await onThread(page, tag);
    await screenshot(page, 'owner-journeys-thread-after-password-1280');
  });

  it('takes a logged-out owner from the new-message e-mail to the thread, through a login code and its e-mail’s link; then counts down a second request', async () => {
    const { email, tag } = await owner();
    await finderWrites(tag);
    const link = linkIn(await mailWithLink(email, `${publicUrl}/login?c=`), `${publicUrl}/login?c=`);

    const page = await openPage({ viewport: 'phone' });
    await snoozePushOffer(page);
    await page.goto(opened(link));
    await heading(page, 'Log in');
    await page.getByLabel('E-mail').fill(email);
    await page.getByRole('link', { name: 'Log in with a code sent by e-mail instead' }).click();
    await heading(page, 'Log in with e-mail');
    expect(new URL(page.url()).searchParams.get('c')).toBe(tag);
    await page.getByRole('button', { name: 'Send me a login code' }).click();
    await heading(page, 'Enter your login code');

    // The code e-mail's link, opened in another tab of the same browser.
    const codePrefix = `${publicUrl}/login/code?code=`;
    const codeLink = linkIn(await mailWithLink(email, codePrefix), codePrefix);
    const tab = await page.context().newPage();
    await tab.goto(opened(codeLink));
    await onThread(tab, tag);

    // Logged out again, a second code within the minute: the screen says when, and the button waits.
    await tab.getByRole('button', { name: 'Log out' }).click();
    await tab.goto(url(`/login/email?email=${encodeURIComponent(email)}`));
    await tab.getByRole('button', { name: 'Send me a login code' }).click();
    const timer = tab.getByRole('timer');
    await timer.waitFor();
    // A minute's budget: Retry-After rounds up, so a request within a second of the first may be told 1:00.
    expect(await timer.textContent()).toMatch(/^You can ask for a new e-mail in (0:[0-5]\d|1:00)\.$/);
    expect(await tab.getByRole('button', { name: 'Send me a login code' }).isDisabled()).toBe(true);
    await screenshot(tab, 'owner-journeys-login-email-countdown-360');
  });

  it('offers a logged-out visitor of a claimed tag "Is this your item? Log in", and not on an unclaimed one', async () => {
    const { tag } = await owner();
    const page = await openPage({ viewport: 'phone' });
    await page.goto(url(`/found/${tag}`));
    await heading(page, "You found someone's item");
    const link = page.getByRole('link', { name: 'Is this your item? Log in' });
    await link.waitFor();
    expect(await link.getAttribute('href')).toBe(`/login?c=${tag}`);
    await link.click();
    await heading(page, 'Log in');
    expect(new URL(page.url()).searchParams.get('c')).toBe(tag);

    await page.goto(url(`/found/${unclaimedTag()}`));
    await heading(page, 'Activate your tag');
    expect(await page.getByRole('link', { name: 'Is this your item? Log in' }).count()).toBe(0);
  });

  it('has no serious accessibility violation on the changed screens at 360 and 1280 px in English, Dutch and Spanish', async () => {
    const existing = await owner();
    const violations: string[] = [];
    const check = async (page: Page, name: string, viewport: keyof typeof VIEWPORTS) => {
      violations.push(...(await seriousViolations(page)).map((violation) => `${name} (${viewport}): ${violation}`));
      const width = await page.evaluate<number>('document.documentElement.scrollWidth');
      if (width > VIEWPORTS[viewport].width) violations.push(`${name} (${viewport}): ${width} px wide, wider than the screen`);
      await screenshot(page, `${name}-${VIEWPORTS[viewport].width}`);
    };
    for (const viewport of Object.keys(VIEWPORTS) as Array<keyof typeof VIEWPORTS>) {
      for (const language of Object.keys(TEXTS) as Language[]) {
        const texts = TEXTS[language];
        // A browser (and client address) per language: three e-mail requests each, well within the per-client limit.
        const page = await openPage({ viewport });
        await page.goto(url('/login'));
        await heading(page, 'Log in');
        await page.locator('header').getByRole('combobox').selectOption(language);

        await page.goto(url(`/login?c=${existing.tag}`));
        await heading(page, texts.login);
        await check(page, `owner-journeys-login-${language}`, viewport);

        // An address whose login code is spent for the minute (any address counts): the countdown shows.
        const spent = `nobody-${randomUUID()}@example.test`;
        expect((await api('GET', `/magic-link?email=${encodeURIComponent(spent)}`)).status).toBe(200);
        await page.goto(url(`/login/email?c=${existing.tag}&email=${encodeURIComponent(spent)}`));
        await heading(page, texts.loginEmail);
        await page.locator('form button[type=submit]').click();
        await page.getByRole('timer').waitFor();
        await check(page, `owner-journeys-login-email-countdown-${language}`, viewport);

        await page.goto(url(`/login/code?c=${existing.tag}`));
        await heading(page, texts.loginCode);
        await check(page, `owner-journeys-login-code-${language}`, viewport);

        expect((await api('POST', '/user/password-forgot', { email: spent })).status).toBe(200);
        await page.goto(url('/forgot-password'));
        await heading(page, texts.forgot);
        await page.locator('input[type=email]').fill(spent);
        await page.locator('form button[type=submit]').click();
        await page.getByRole('timer').waitFor();
        await check(page, `owner-journeys-forgot-password-countdown-${language}`, viewport);

        // An existing user activating a new tag while logged out, confirming with Enter.
        await page.goto(url(`/activate/${unclaimedTag()}`));
        await heading(page, texts.activate);
        await page.locator('input[type=email]').fill(existing.email);
        await page.keyboard.press('Enter');
        await heading(page, texts.confirm);
        await page.keyboard.press('Enter');
        await heading(page, texts.done);
        const toLogin = page.locator(`main a[href^="/login?ec="]`);
        await toLogin.waitFor();
        expect(new URL(url((await toLogin.getAttribute('href')) ?? '')).searchParams.get('email')).toBe(existing.email);
        await check(page, `owner-journeys-activate-done-${language}`, viewport);

        await page.goto(url(`/reset-password/not-a-real-token-${randomUUID()}`));
        await heading(page, texts.reset);
        for (const field of await page.locator('input[type=password]').all()) await field.fill('a long enough password');
        await page.locator('form button[type=submit]').click();
        await page.getByRole('link', { name: texts.forgotLink }).waitFor();
        expect(await page.locator('main a[href="/login"]').count()).toBeGreaterThan(0);
        await check(page, `owner-journeys-invalid-token-${language}`, viewport);

        await page.goto(url(`/found/${existing.tag}`));
        await heading(page, texts.finder);
        await page.getByRole('link', { name: texts.ownerLogin }).waitFor();
        await check(page, `owner-journeys-finder-login-link-${language}`, viewport);
      }
    }
    expect(violations).toEqual([]);
    // Six languages and widths, seven screens each, on a machine shared with other test runs.
  }, 900_000);
});
