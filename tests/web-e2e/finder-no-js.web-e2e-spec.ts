import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import type { BrowserContext, Page } from 'playwright-core';
import { startStack, type Stack } from '../support/stack';
import { appTookOver, chromiumForSuite, heading, layoutShifts, newContext, screenshot, seriousViolations, VIEWPORTS, watchLayoutShifts } from './browser';
import { ownerWithItem } from './owners';

// The finder page in a browser that runs no script: the gateway renders /found/{code} from the web build's server
// entry, takes the form as a post and answers with the page again (303), the finder's conversation kept by an
// HttpOnly cookie of that page. With script, the app takes the same page over without moving anything.

const TEXTS = {
  en: {
    finderTitle: "You found someone's item",
    message: 'Message',
    finderEmail: 'Your e-mail (optional)',
    sendFirst: 'Send to the owner',
    sendReply: 'Send reply',
    messages: 'Messages',
    required: 'This field is required.',
    notAllowed: 'You are not allowed to perform this action.',
  },
  nl: {
    finderTitle: 'Je hebt andermans voorwerp gevonden',
    message: 'Bericht',
    finderEmail: 'Je e-mailadres (optioneel)',
    sendFirst: 'Verstuur naar de eigenaar',
    emailInvalid: 'Dit e-mailadres lijkt niet te kloppen.',
  },
} as const;

describe('the finder page without JavaScript', () => {
  let stack: Stack;
  // The site as its PUBLIC_URL names it (the stack's gateway answers on localhost): a form's Origin must be that.
  let site: string;

  beforeAll(async () => {
    stack = await startStack({ env: { gateway: { TRUSTED_PROXIES: '127.0.0.1,::1' } } });
    site = stack.base.replace('127.0.0.1', 'localhost');
  });

  afterAll(() => stack?.stop());

  const { openContext } = chromiumForSuite();

  /** A browser profile that runs no script, speaking from its own client address. */
  function scriptless(locale = 'en-GB'): Promise<BrowserContext> {
    return openContext((browser) =>
      browser.newContext({ javaScriptEnabled: false, viewport: VIEWPORTS.phone, locale, extraHTTPHeaders: { 'x-forwarded-for': `10.${[...randomBytes(3)].join('.')}` } }),
    );
  }

  /**
   * Accessibility violations of the page a scriptless context has open, as that context sees it (its cookies, its
   * language). axe-core runs as a script, which a context without JavaScript cannot: the page is opened again in one
   * that runs axe but loads none of the page's own scripts.
   */
  async function violationsWithoutScripts(page: Page, locale = 'en-GB'): Promise<string[]> {
    const context = await openContext((browser) => browser.newContext({ viewport: VIEWPORTS.phone, locale, extraHTTPHeaders: { 'x-forwarded-for': `10.${[...randomBytes(3)].join('.')}` } }));
    await context.addCookies(await page.context().cookies());
    await context.route(/\.js(\?|$)/, (route) => route.abort());
    const copy = await context.newPage();
    await copy.goto(page.url());
    await copy.setContent(await page.content(), { waitUntil: 'load' });
    return seriousViolations(copy);
  }

  /** Submits the page's form and waits for the page that answers it; the POST's own answer. */
  async function submit(page: Page, button: string): Promise<{ status: number; location: string | undefined }> {
    const [posted] = await Promise.all([page.waitForResponse((response) => response.request().method() === 'POST'), page.getByRole('button', { name: button }).click()]);
    await page.waitForLoadState('domcontentloaded');
    return { status: posted.status(), location: (await posted.allHeaders()).location };
  }

  it('lets a finder write, read the owner’s answer and reply, with no script at all', async () => {
    const owner = await ownerWithItem(stack, 'Green umbrella');
    const { code } = owner;
    const en = TEXTS.en;
    const context = await scriptless();
    const page = await context.newPage();

    const opened = await page.goto(`${site}/found/${code}`);
    expect(opened?.status()).toBe(200);
    await heading(page, en.finderTitle);
    expect(await page.getAttribute('html', 'lang')).toBe('en');
    expect(await page.title()).toBe(`${en.finderTitle} · Homing`);
    // Nothing on it says the page needs script: it does not.
    expect(await page.content()).not.toContain('needs JavaScript');
    expect(await violationsWithoutScripts(page)).toEqual([]);

    const finderEmail = `finder-${randomUUID()}@example.test`;
    await page.getByLabel(en.message, { exact: true }).fill('I found your umbrella\non the 8:15 train');
    await page.getByLabel(en.finderEmail).fill(finderEmail);
    const first = await submit(page, en.sendFirst);
    expect(first).toEqual({ status: 303, location: `/found/${code}` });
    const thread = page.getByRole('list', { name: en.messages });
    await thread.getByText('I found your umbrella').waitFor();
    await thread.getByText('on the 8:15 train').waitFor();
    expect(new URL(page.url()).pathname).toBe(`/found/${code}`);

    // The finder's token is theirs alone: this page's cookie, out of script's reach, never sent from another site.
    const cookies = await context.cookies();
    expect(cookies).toEqual([expect.objectContaining({ name: 'homing_finder', path: `/found/${code}`, httpOnly: true, sameSite: 'Strict', secure: false })]);
    expect(cookies[0].value).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(cookies[0].expires - Date.now() / 1000).toBeGreaterThan(29 * 24 * 3600);

    // The page with the conversation is never cached, and keeps the security headers of every page.
    const again = await page.reload();
    expect(again?.headers()['cache-control']).toBe('private, no-store');
    expect(again?.headers()['content-security-policy']).toContain("script-src 'self'");
    expect(again?.headers()['x-content-type-options']).toBe('nosniff');

    // The owner answers (through the API, as the app does).
    const answered = await fetch(`${stack.api}/items/${code}/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${owner.token}`, 'x-forwarded-for': '10.205.0.1' },
      body: JSON.stringify({ content: 'Thank you! I will pick it up tonight.' }),
    });
    expect(answered.status).toBe(201);
    // The address the finder left hears of it.
    const [mail] = await stack.mail.waitForMails(finderEmail, 1, 30_000);
    expect(mail.subject).toBe('The owner answered your message');

    await page.reload();
    await thread.getByText('Thank you! I will pick it up tonight.').waitFor();
    // The reply form: no address asked again.
    expect(await page.getByLabel(en.finderEmail).count()).toBe(0);
    await page.getByLabel(en.message, { exact: true }).fill('Great, I will leave it at the desk.');
    expect(await submit(page, en.sendReply)).toEqual({ status: 303, location: `/found/${code}` });
    await thread.getByText('Great, I will leave it at the desk.').waitFor();
    expect(await thread.getByRole('listitem').count()).toBe(3);
    expect(await violationsWithoutScripts(page)).toEqual([]);
    await screenshot(page, 'finder-no-js-thread-360');

    // The owner reads both of the finder's messages in one conversation.
    const read = await fetch(`${stack.api}/items/${code}/messages`, { headers: { authorization: `Bearer ${owner.token}`, 'x-forwarded-for': '10.205.0.1' } });
    const contents = ((await read.json()) as Array<{ content: string; conversation_id: string }>).map((message) => message.content);
    expect(contents).toEqual(['I found your umbrella\non the 8:15 train', 'Thank you! I will pick it up tonight.', 'Great, I will leave it at the desk.']);

    // The owner resets the thread: the finder's cookie is forgotten, and the page starts afresh.
    const reset = await fetch(`${stack.api}/user/items/${code}/reset`, { method: 'POST', headers: { authorization: `Bearer ${owner.token}`, 'x-forwarded-for': '10.205.0.1' } });
    expect(reset.status).toBe(204);
    await page.reload();
    await page.getByRole('button', { name: en.sendFirst }).waitFor();
    expect(await thread.count()).toBe(0);
    expect(await context.cookies()).toEqual([]);
  });

  it('shows a refused form again with its error, in the finder’s language, what they typed kept', async () => {
    const { code } = await ownerWithItem(stack, 'Fiets');
    const nl = TEXTS.nl;
    const page = await (await scriptless('nl-NL')).newPage();
    await page.goto(`${site}/found/${code}`);
    await heading(page, nl.finderTitle);
    expect(await page.getAttribute('html', 'lang')).toBe('nl');
    expect(await violationsWithoutScripts(page, 'nl-NL')).toEqual([]);

    await page.getByLabel(nl.message, { exact: true }).fill('Je fiets staat bij de bakker');
    await page.getByLabel(nl.finderEmail).fill('not an address');
    expect((await submit(page, nl.sendFirst)).status).toBe(422);
    await page.getByRole('alert').filter({ hasText: nl.emailInvalid }).waitFor();
    expect(await page.getByLabel(nl.message, { exact: true }).inputValue()).toBe('Je fiets staat bij de bakker');
    expect(await page.getByLabel(nl.finderEmail).inputValue()).toBe('not an address');
    expect(await page.getAttribute('html', 'lang')).toBe('nl');
    expect(await violationsWithoutScripts(page, 'nl-NL')).toEqual([]);
    await screenshot(page, 'finder-no-js-invalid-nl-360');

    // Nothing was written, and no cookie was set.
    expect(await page.context().cookies()).toEqual([]);
  });

  it('refuses a form posted from another site, and one that names no origin', async () => {
    const { code } = await ownerWithItem(stack, 'Keys');
    const post = (headers: Record<string, string>) =>
      fetch(`${site}/found/${code}`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': '10.206.0.1', ...headers },
        body: new URLSearchParams({ language: 'en', content: 'Send me your address' }).toString(),
      });
    for (const refused of [await post({ origin: 'https://evil.example' }), await post({})]) {
      expect(refused.status).toBe(403);
      expect(refused.headers.get('set-cookie')).toBeNull();
      expect(refused.headers.get('content-type')).toMatch(/^text\/html/);
      expect(await refused.text()).toContain(TEXTS.en.notAllowed);
    }
    // The same post from the site itself goes through, its media type spelt in any case.
    const accepted = await post({ origin: new URL(site).origin });
    expect(accepted.status).toBe(303);
    expect((await post({ origin: new URL(site).origin, 'content-type': 'Application/X-WWW-Form-Urlencoded' })).status).toBe(303);
    // A refused message gives the page back with what was typed: never stored by a cache.
    const invalid = await fetch(`${site}/found/${code}`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': '10.206.0.2', origin: new URL(site).origin },
      body: new URLSearchParams({ language: 'en', content: 'Hello', email: 'not an address' }).toString(),
    });
    expect({ status: invalid.status, cache: invalid.headers.get('cache-control') }).toEqual({ status: 422, cache: 'private, no-store' });
    // The API stays JSON only: a form body there is refused, not read.
    const api = await fetch(`${stack.api}/items/${code}/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': '10.206.0.1' },
      body: 'content=hello',
    });
    expect(api.status).toBe(415);
  });

  it('answers an unknown code with the not-found page and status 404', async () => {
    const page = await (await scriptless()).newPage();
    const response = await page.goto(`${site}/found/0000-0000-0000-0000`);
    expect(response?.status()).toBe(404);
    await heading(page, 'Item not found');

    // Each one is a miss of the unknown-code limit, as on every route with a code: past 30, a real tag answers 429 too.
    const { code } = await ownerWithItem(stack, 'Gloves');
    const address = { 'x-forwarded-for': `10.207.${[...randomBytes(2)].join('.')}` };
    for (let miss = 0; miss < 30; miss += 1) {
      const guess = (await fetch(`${site}/found/${randomBytes(10).toString('hex').slice(0, 16).toUpperCase()}`, { headers: address })).status;
      expect(guess).toBe(404);
    }
    const blocked = await fetch(`${site}/found/${code}`, { headers: address });
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0);
    // Said on the page, in the app's words.
    expect(blocked.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await blocked.text()).toContain('You are making too many requests.');
  });

  it.each([
    ['en', 'en-GB', TEXTS.en.sendFirst],
    ['nl', 'nl-NL', TEXTS.nl.sendFirst],
  ])('is taken over by the app in %s, with script, without anything moving', async (language, locale, sendFirst) => {
    const { code } = await ownerWithItem(stack, 'Red scarf');
    const visitor = await (await openContext((browser) => newContext(browser, { viewport: 'phone', locale }))).newPage();
    await watchLayoutShifts(visitor);
    await visitor.goto(`${site}/found/${code}`);
    expect(await visitor.getAttribute('html', 'lang')).toBe(language);
    await appTookOver(visitor);
    await visitor.getByRole('button', { name: sendFirst, disabled: false }).waitFor();
    await visitor.evaluate('new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)))');
    expect(await layoutShifts(visitor)).toEqual([]);
    // The app carries on in the language the page arrived in.
    expect(await visitor.getAttribute('html', 'lang')).toBe(language);

    if (language !== 'en') return;
    // And the app sends as it always has.
    await visitor.getByLabel(TEXTS.en.message, { exact: true }).fill('Found it in the park');
    await visitor.getByRole('button', { name: TEXTS.en.sendFirst }).click();
    await visitor.getByRole('list', { name: TEXTS.en.messages }).getByText('Found it in the park').waitFor();
  });

  it('keeps its header in place on a phone while the page is still arriving', async () => {
    // A phone on a weak line, or a busy one, paints the page before all of its HTML is in. The header first drawn
    // with a language list of one option and no menu yet must not move as the rest arrives. (On a wide screen the
    // language list and menu sit at the header's right end, so a part arriving late moves them left: see the
    // header's rules in styles.css.)
    const { code } = await ownerWithItem(stack, 'Grey scarf');
    const slow = await startPieceByPieceProxy(stack.base);
    try {
      const visitor = await (await openContext((browser) => newContext(browser, { viewport: 'phone', locale: 'nl-NL' }))).newPage();
      await watchLayoutShifts(visitor);
      const arrived = visitor.goto(`${slow.url}/found/${code}`);
      await visitor.waitForSelector('select#language', { state: 'attached' });
      // Painted with what has arrived (the proxy holds the rest): a language list of one option, no menu, no page.
      await visitor.evaluate('new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)))');
      expect(await visitor.locator('select#language option').count()).toBe(1);
      slow.sendTheRest();
      await arrived;
      await appTookOver(visitor);
      await visitor.evaluate('new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)))');
      expect(await layoutShifts(visitor)).toEqual([]);
    } finally {
      await slow.stop();
    }
  });

  it('leaves a finder who wrote without script an app that works when script comes back', async () => {
    const { code } = await ownerWithItem(stack, 'Blue hat');
    const context = await openContext((browser) => newContext(browser, { viewport: 'phone' }));
    // Written without script (the form's post), then the page opened with it.
    const bare = await context.newPage();
    await bare.route('**/*.js', (route) => route.abort());
    await bare.goto(`${site}/found/${code}`);
    await bare.getByLabel(TEXTS.en.message, { exact: true }).fill('Your hat is at the café');
    expect((await submit(bare, TEXTS.en.sendFirst)).status).toBe(303);
    await bare.getByRole('list', { name: TEXTS.en.messages }).getByText('Your hat is at the café').waitFor();
    const errors: string[] = [];
    const page = await context.newPage();
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(`${site}/found/${code}`);
    await appTookOver(page);
    await heading(page, TEXTS.en.finderTitle);
    expect(errors).toEqual([]);
  });
});

/**
 * A proxy to the gateway that sends a finder page's HTML in pieces, as a slow connection delivers it: up to the first
 * language of the language list, then nothing until `sendTheRest()`, then a pause after each further language and
 * after the header. Everything else passes through as it is.
 */
async function startPieceByPieceProxy(gateway: string): Promise<{ url: string; sendTheRest(): void; stop(): Promise<void> }> {
  const upstream = new URL(gateway);
  let sendTheRest = () => {};
  const restMaySend = new Promise<void>((resolve) => (sendTheRest = resolve));
  const server: Server = createServer((incoming, outgoing) => {
    const forward = httpRequest(
      { host: upstream.hostname, port: upstream.port, method: incoming.method, path: incoming.url, headers: { ...incoming.headers, host: upstream.host } },
      (answer) => {
        const isPage = incoming.method === 'GET' && incoming.url?.startsWith('/found/') && answer.headers['content-type']?.startsWith('text/html');
        if (!isPage) {
          outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(outgoing);
          return;
        }
        const chunks: Buffer[] = [];
        answer.on('data', (chunk: Buffer) => chunks.push(chunk));
        answer.on('end', () => {
          const { 'content-length': _length, ...headers } = answer.headers;
          outgoing.writeHead(answer.statusCode ?? 502, headers);
          const [first, ...rest] = Buffer.concat(chunks).toString('utf8').split(/(?<=<\/option>|<\/header>)/);
          outgoing.write(first);
          void (async () => {
            await restMaySend;
            for (const piece of rest) {
              outgoing.write(piece);
              await sleep(150);
            }
            outgoing.end();
          })();
        });
      },
    );
    forward.on('error', () => outgoing.destroy());
    incoming.pipe(forward);
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    sendTheRest: () => sendTheRest(),
    stop: () => {
      sendTheRest();
      server.closeAllConnections();
      return new Promise((closed) => server.close(() => closed()));
    },
  };
}
