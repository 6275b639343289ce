import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { expectEventually } from '@homing/testing';
import type { Page } from 'playwright-core';
import { decodeQrPng } from '../support/qr-decode';
import { startStack, type Stack } from '../support/stack';
import { chromiumForSuite, heading, logIn as logInAt, screenshot, seriousViolations, VIEWPORTS } from './browser';

// The owner's item page and the rough edges around it, in Chromium against the whole product: the tag's QR code as a
// PNG and as labels to print, the unknown-finder warning with several finders, the unread badge after live messages, a
// flash message in a newly chosen language, the owner's preview of the finder page, a tag code that never wraps, tap
// targets of 44 px, and axe on every screen this touches at 360 and 1280 px in English, Dutch and Spanish.

// Where the web app keeps its access token (apps/web/src/lib/api-session.ts) and the push offer's snooze
// (apps/web/src/features/push/push-subscription.ts): the offer would cover the screens these tests look at.
const TOKEN_KEY = 'homing.token';
const PUSH_SNOOZE_KEY = 'homing.push.snoozedUntil';

/** What the screens say in each language, as the locales of apps/web word them. */
const TEXTS = {
  en: { myItems: 'My items', itemTitle: 'Edit item', printTitle: 'Print your QR code', preview: 'See what a finder sees', finderTitle: "You found someone's item", saved: 'Item saved.' },
  nl: { myItems: 'Mijn spullen', itemTitle: 'Voorwerp bewerken', printTitle: 'Print je QR-code', preview: 'Bekijk wat een vinder ziet', finderTitle: 'Je hebt andermans voorwerp gevonden', saved: 'Voorwerp opgeslagen.' },
  es: { myItems: 'Mis objetos', itemTitle: 'Editar objeto', printTitle: 'Imprime tu código QR', preview: 'Ver lo que ve quien lo encuentra', finderTitle: 'Has encontrado un objeto de otra persona', saved: 'Objeto guardado.' },
} as const;
type Language = keyof typeof TEXTS;

const FINDER_UNKNOWN = /The finder did not leave an e-mail address/;

describe('the owner’s item page in a browser', () => {
  let stack: Stack;
  let publicUrl: string;

  beforeAll(async () => {
    stack = await startStack({ env: { gateway: { TRUSTED_PROXIES: '127.0.0.1,::1' } } });
    publicUrl = `http://localhost:${new URL(stack.base).port}`;
  });

  afterAll(() => stack?.stop());

  const { openPage } = chromiumForSuite();

  const url = (path: string) => `${stack.base}${path}`;

  /**
   * A user as activating a tag creates one, with a password set through the API. Hashing a password is slow on a busy
   * machine: a set that timed out (5xx) starts again with another user rather than reusing a token that may be spent.
   */
  async function newUser(password = `pw-${randomUUID()}`, attempts = 3): Promise<{ email: string; password: string }> {
    const email = `owner-${randomUUID()}@example.test`;
    const reply = await stack.nc.request(`${stack.namespace}.identity.rpc.ensure-user`, JSON.stringify({ email, language: 'en' }), { timeout: 5000 });
    const { passwordToken } = reply.json<{ passwordToken: string }>();
    const set = await fetch(`${stack.api}/user/password`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-forwarded-for': '10.203.0.1' }, body: JSON.stringify({ token: passwordToken, password }) });
    if (set.status >= 500 && attempts > 1) return newUser(password, attempts - 1);
    expect(set.status).toBe(200);
    return { email, password };
  }

  /** A page logged in as a new owner (push offer snoozed), and the owner's token for API calls. */
  async function ownerPage(options: Parameters<typeof openPage>[0] = {}): Promise<{ page: Page; token: string }> {
    const page = await openPage(options);
    await page.addInitScript(`localStorage.setItem(${JSON.stringify(PUSH_SNOOZE_KEY)}, String(Date.now() + 3600000))`);
    await logInAt(page, stack.base, await newUser());
    const token = await page.evaluate<string>(`localStorage.getItem(${JSON.stringify(TOKEN_KEY)})`);
    return { page, token };
  }

  async function newItem(token: string, name = `Backpack ${randomUUID().slice(0, 6)}`): Promise<string> {
    const response = await fetch(`${stack.api}/items`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'x-forwarded-for': '10.203.0.2' },
      body: JSON.stringify({ name }),
    });
    expect(response.status).toBe(201);
    return ((await response.json()) as { code: string }).code;
  }

  /** A finder's message through the API: a new conversation without a token, with an e-mail left first when given. */
  async function writeAsFinder(code: string, content: string, options: { email?: string; finderToken?: string } = {}) {
    const headers = { 'content-type': 'application/json', 'x-forwarded-for': `10.204.${Math.floor(Math.random() * 250)}.1` };
    let finderToken = options.finderToken;
    if (options.email) {
      const set = await expectEventually(async () => {
        const answer = await fetch(`${stack.api}/items/${code}/set-finder`, { method: 'POST', headers, body: JSON.stringify({ email: options.email }) });
        expect(answer.status).toBeLessThan(300);
        return answer;
      });
      finderToken = ((await set.json()) as { finder_token: string }).finder_token;
    }
    // Messaging learns of a new item from its event: until then the item is unknown to it (404, nothing written).
    const response = await expectEventually(async () => {
      const answer = await fetch(`${stack.api}/items/${code}/messages`, {
        method: 'POST',
        headers: { ...headers, ...(finderToken ? { 'x-finder-token': finderToken } : {}) },
        body: JSON.stringify({ content }),
      });
      expect(answer.status).toBe(201);
      return answer;
    });
    const body = (await response.json()) as { finder_token?: string };
    return body.finder_token ?? finderToken;
  }

  const unreadCount = async (token: string, code: string) =>
    (await (await fetch(`${stack.api}/user/items/${code}/unread-count`, { headers: { authorization: `Bearer ${token}`, 'x-forwarded-for': '10.203.0.3' } })).json()) as number;

  it('downloads the tag’s PNG from the item page, which opens the finder page, and prints labels at two sizes on demand', async () => {
    const { page, token } = await ownerPage();
    const code = await newItem(token);
    // The print dialog is counted, never opened: it must open on the owner's click only.
    await page.addInitScript('window.__printed = 0; window.print = () => { window.__printed += 1; };');
    await page.goto(url(`/item/${code}`));
    await heading(page, 'Edit item');

    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Download PNG' }).click()]);
    expect(download.suggestedFilename()).toBe(`homing-${code}.png`);
    expect(decodeQrPng(await readFile((await download.path()) as string))).toBe(`${publicUrl}/found/${code}`);

    await page.getByRole('link', { name: 'Print QR code' }).click();
    await page.waitForURL(url(`/item/${code}/print`));
    await heading(page, 'Print your QR code');
    const labels = page.getByRole('list', { name: 'Labels to print' }).getByRole('listitem');
    expect(await labels.count()).toBe(2);
    const widths: number[] = [];
    for (const label of await labels.all()) {
      const image = label.getByRole('img', { name: `QR code of tag ${code}` });
      await image.and(page.locator('img')).waitFor();
      widths.push((await image.boundingBox())?.width ?? 0);
      await label.getByText(code, { exact: true }).waitFor();
      expect(code).toMatch(/^[0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z]{4}$/);
      await label.getByText('Found this? Scan me to reach the owner.').waitFor();
    }
    expect(widths[0]).toBeGreaterThan(widths[1] * 1.5);
    expect(await page.evaluate<number>('window.__printed')).toBe(0);

    // On paper: no navigation, no buttons, the two labels at 5 and 2.5 cm (96 px to the inch).
    await page.emulateMedia({ media: 'print' });
    expect(await page.locator('header').isVisible()).toBe(false);
    expect(await page.locator('footer').isVisible()).toBe(false);
    expect(await page.getByRole('button', { name: 'Print' }).isVisible()).toBe(false);
    const printed = await Promise.all((await labels.all()).map(async (label) => Math.round((await label.locator('img.qr').boundingBox())?.width ?? 0)));
    expect(printed).toEqual([189, 94]);
    await page.emulateMedia({ media: 'screen' });

    await page.getByRole('button', { name: 'Print' }).click();
    expect(await page.evaluate<number>('window.__printed')).toBe(1);
  });

  it('warns that a finder left no e-mail only while that finder is picked in "Reply to"', async () => {
    const { page, token } = await ownerPage();
    const code = await newItem(token);
    await writeAsFinder(code, 'I found it, write to me', { email: `finder-${randomUUID()}@example.test` });
    // The latest finder left no address.
    await writeAsFinder(code, 'Found it too, no e-mail');

    await page.goto(url(`/found/${code}`));
    const replyTo = page.getByLabel('Reply to');
    await replyTo.waitFor();
    expect(await replyTo.inputValue()).not.toBe('');
    await page.getByText(FINDER_UNKNOWN).waitFor();

    await replyTo.selectOption({ label: 'Finder 1' });
    await page.getByText(FINDER_UNKNOWN).waitFor({ state: 'detached' });
    await replyTo.selectOption({ label: 'Finder 2' });
    await page.getByText(FINDER_UNKNOWN).waitFor();
  });

  it('does not count as unread the messages the owner saw arrive in the open thread', async () => {
    const { page, token } = await ownerPage();
    const code = await newItem(token);
    const finderToken = await writeAsFinder(code, 'First message before the owner looked');
    await page.goto(url(`/found/${code}`));
    await page.getByText('First message before the owner looked').waitFor();
    await expectEventually(async () => expect(await unreadCount(token, code)).toBe(0));

    // Two messages while the owner has the thread open: they appear without a reload.
    await writeAsFinder(code, 'Live message one', { finderToken });
    await writeAsFinder(code, 'Live message two', { finderToken });
    await page.getByText('Live message one').waitFor();
    await page.getByText('Live message two').waitFor();
    await expectEventually(async () => expect(await unreadCount(token, code)).toBe(0));

    // The next visit shows no badge for them.
    await page.goto(url('/items'));
    await heading(page, 'My items');
    await page.goto(url(`/found/${code}`));
    await page.getByText('Live message two').waitFor();
    expect(await page.getByRole('status', { name: /unread messages/ }).count()).toBe(0);
  });

  it('says a flash message again in the language the owner picks while it shows', async () => {
    const { page, token } = await ownerPage();
    const code = await newItem(token);
    await page.goto(url(`/item/${code}`));
    await heading(page, 'Edit item');
    await page.getByLabel('Name').fill('Blue umbrella');
    await page.getByRole('button', { name: 'Save' }).click();
    const flash = page.getByTestId('flash');
    await flash.getByText(TEXTS.en.saved).waitFor();
    await page.locator('header').getByRole('combobox').selectOption('nl');
    await flash.getByText(TEXTS.nl.saved).waitFor({ timeout: 2000 });
    await page.locator('header').getByRole('combobox').selectOption('es');
    await flash.getByText(TEXTS.es.saved).waitFor({ timeout: 2000 });
  });

  it('lets the owner see the finder page as a finder does, read-only, writing nothing', async () => {
    const { page, token } = await ownerPage();
    const code = await newItem(token);
    await writeAsFinder(code, 'Is this yours?');
    const writes: string[] = [];
    page.on('request', (request) => {
      if (request.method() !== 'GET' && request.url().startsWith(stack.api)) writes.push(`${request.method()} ${request.url()}`);
    });
    await page.goto(url(`/found/${code}`));
    await page.getByText('Is this yours?').waitFor();
    const before = writes.length;

    await page.getByRole('navigation', { name: 'Item menu' }).getByRole('link', { name: 'See what a finder sees' }).click();
    await page.waitForURL(url(`/found/${code}/preview`));
    await heading(page, "You found someone's item");
    await page.getByText(/only a preview: nothing here is sent/).waitFor();
    // The finder's first-message form, as a finder gets it, but nothing can be typed or sent.
    expect(await page.getByLabel('Message').isDisabled()).toBe(true);
    expect(await page.getByLabel('Your e-mail (optional)').isDisabled()).toBe(true);
    expect(await page.getByRole('button', { name: 'Send to the owner' }).isDisabled()).toBe(true);
    // Neither the owner's thread nor the finders' conversations show in the preview.
    expect(await page.getByText('Is this yours?').count()).toBe(0);

    await page.getByRole('link', { name: 'Back to your messages' }).click();
    await page.getByText('Is this yours?').waitFor();
    expect(writes.slice(before)).toEqual([]);
    expect(await page.evaluate<string | null>(`localStorage.getItem('homing.finder.${code}')`)).toBeNull();
  });

  it('keeps the example tag code on one line at 360 px, and every button and link of the main screens 44 px high', async () => {
    const { page, token } = await ownerPage({ viewport: 'phone' });
    const code = await newItem(token);
    await writeAsFinder(code, 'Found near the station');

    await page.goto(url('/'));
    const example = page.locator('.tag-code-form code.tag-code');
    await example.waitFor();
    const lines = await page.evaluate<{ rects: number; height: number; lineHeight: number }>(`(() => {
      const element = document.querySelector('.tag-code-form code.tag-code');
      return { rects: element.getClientRects().length, height: element.getBoundingClientRect().height, lineHeight: parseFloat(getComputedStyle(element).lineHeight) || 24 };
    })()`);
    expect(lines.rects).toBe(1);
    expect(lines.height).toBeLessThan(lines.lineHeight * 1.5);

    const screens: Array<[string, string, () => Promise<void>]> = [
      ['landing', '/', () => page.getByRole('button', { name: 'Write to the owner' }).waitFor()],
      ['about', '/about', () => page.locator('main h1').waitFor()],
      ['my items', '/items', () => page.getByText(/Backpack/).first().waitFor()],
      ['item page', `/item/${code}`, () => heading(page, 'Edit item')],
      ['print page', `/item/${code}/print`, () => heading(page, 'Print your QR code')],
      ['owner thread', `/found/${code}`, () => page.getByText('Found near the station').waitFor()],
      ['preview', `/found/${code}/preview`, () => heading(page, "You found someone's item")],
    ];
    const small: string[] = [];
    for (const [name, path, ready] of screens) {
      await page.goto(url(path));
      await ready();
      // Shown and on the page (the skip link waits above it until it has the focus).
      const targets = await page.evaluate<Array<{ text: string; height: number }>>(`
        [...document.querySelectorAll('a[href], button, select, [role="menuitem"]')]
          .filter((element) => {
            const box = element.getBoundingClientRect();
            return box.width > 0 && box.height > 0 && box.bottom > 0 && getComputedStyle(element).visibility !== 'hidden';
          })
          .map((element) => ({
            text: (element.textContent || element.getAttribute('aria-label') || element.tagName).trim().slice(0, 40),
            height: element.getBoundingClientRect().height,
          }))
      `);
      expect(targets.length).toBeGreaterThan(0);
      small.push(...targets.filter((target) => target.height < 44 - 0.5).map((target) => `${name}: "${target.text}" ${target.height.toFixed(1)} px`));
    }
    expect(small).toEqual([]);
  });

  // One viewport a test: fifteen screens with axe each take their time.
  it.each(Object.keys(VIEWPORTS) as Array<keyof typeof VIEWPORTS>)(
    'has no serious accessibility violation on the item page, the print page, an empty My items, the owner’s thread and the preview, in en, nl and es (%s)',
    async (viewport) => {
      const violations: string[] = [];
      const { page: emptyPage } = await ownerPage({ viewport });
      const { page, token } = await ownerPage({ viewport });
      const code = await newItem(token);
      await writeAsFinder(code, 'Found it on the bus');
      await writeAsFinder(code, 'Me too, on the train');
      for (const language of Object.keys(TEXTS) as Language[]) {
        const texts = TEXTS[language];
        const screens: Array<[string, Page, string, (page: Page) => Promise<void>]> = [
          ['my-items-empty', emptyPage, '/items', (shown) => heading(shown, texts.myItems)],
          ['item-page', page, `/item/${code}`, (shown) => heading(shown, texts.itemTitle)],
          ['print-page', page, `/item/${code}/print`, (shown) => heading(shown, texts.printTitle)],
          ['owner-thread', page, `/found/${code}`, (shown) => shown.getByText('Me too, on the train').waitFor()],
          ['finder-preview', page, `/found/${code}/preview`, (shown) => heading(shown, texts.finderTitle)],
        ];
        for (const switched of new Set([emptyPage, page])) {
          await switched.goto(url('/items'));
          await switched.locator('header').getByRole('combobox').selectOption(language);
        }
        for (const [name, shown, path, ready] of screens) {
          await shown.goto(url(path));
          await ready(shown);
          if (name === 'owner-thread') await shown.getByRole('link', { name: texts.preview }).waitFor();
          violations.push(...(await seriousViolations(shown)).map((violation) => `${name}-${language} (${viewport}): ${violation}`));
          const width = await shown.evaluate<number>('document.documentElement.scrollWidth');
          if (width > VIEWPORTS[viewport].width) violations.push(`${name}-${language} (${viewport}): ${width} px wide, wider than the screen`);
          await screenshot(shown, `owner-${name}-${language}-${VIEWPORTS[viewport].width}`);
        }
      }
      expect(violations).toEqual([]);
    },
    300_000,
  );
});
