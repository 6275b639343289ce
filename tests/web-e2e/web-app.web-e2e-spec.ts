import { randomUUID } from 'node:crypto';
import { expectEventually, linkIn, runServiceCommand, type ReceivedMail } from '@homing/testing';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startStack, type Stack } from '../support/stack';
import { launchChromium, newContext, screenshot, seriousViolations, VIEWPORTS } from './browser';

// The web app in Chromium against the whole product, as a user meets it: every flow through the screens, the
// e-mails read from the stack's SMTP sink.
// Where the web app keeps its access token (apps/web/src/lib/api-client.ts).
const TOKEN_KEY = 'homing.token';

describe('the web app in a browser', () => {
  let stack: Stack;
  let browser: Browser;
  const contexts: BrowserContext[] = [];
  // Unclaimed tags minted before the services start, as the items service's `seed-tags` command does for development.
  let tags: string[] = [];
  const unclaimedTag = () => {
    const tag = tags.shift();
    if (!tag) throw new Error('the suite minted too few tags');
    return tag;
  };

  beforeAll(async () => {
    // One after the other: the services' start-up has a deadline, and Chromium's start competes for the CPU.
    stack = await startStack({
      env: { gateway: { TRUSTED_PROXIES: '127.0.0.1,::1' }, notifications: { PUBLIC_URL: publicUrl } },
      beforeStart: async ({ envOf }) => {
        tags = (await runServiceCommand('items', ['seed-tags', '--count', '6'], envOf('items'))).trim().split('\n');
      },
    });
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });

  afterEach(async () => {
    await Promise.all(contexts.splice(0).map((context) => context.close()));
  });

  async function openPage(options: Parameters<typeof newContext>[1] = {}): Promise<Page> {
    const context = await newContext(browser, options);
    contexts.push(context);
    return context.newPage();
  }

  const url = (path: string) => `${stack.base}${path}`;
  // Links in e-mails start with the gateway's PUBLIC_URL.
  const publicUrl = 'https://homing.web-e2e';

  /** A user as activating a tag creates one, with a password set through the API. */
  async function newUser(password = `pw-${randomUUID()}`) {
    const email = `owner-${randomUUID()}@example.test`;
    const reply = await stack.nc.request(`${stack.namespace}.identity.rpc.ensure-user`, JSON.stringify({ email, language: 'en' }), { timeout: 5000 });
    const { passwordToken } = reply.json<{ passwordToken: string }>();
    const set = await fetch(`${stack.api}/user/password`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-forwarded-for': '10.200.0.1' }, body: JSON.stringify({ token: passwordToken, password }) });
    expect(set.status).toBe(200);
    return { email, password };
  }

  async function heading(page: Page, name: string | RegExp) {
    await page.getByRole('heading', { name, level: 1 }).waitFor();
  }

  async function logIn(page: Page, user: { email: string; password: string }) {
    await page.goto(url('/login'));
    await page.getByLabel('E-mail').fill(user.email);
    await page.getByLabel('Password', { exact: true }).fill(user.password);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.waitForURL(url('/items'));
    await heading(page, 'My items');
  }

  async function logOut(page: Page) {
    await page.getByRole('button', { name: 'Log out' }).click();
    await page.getByRole('navigation', { name: 'Main menu' }).getByRole('link', { name: 'Log in' }).waitFor();
  }

  /** The e-mail to an address that holds a link starting with `prefix` (a new user also gets a welcome e-mail). */
  function mailWithLink(email: string, prefix: string): Promise<ReceivedMail> {
    return expectEventually(
      () => {
        const mail = stack.mail.mailsTo(email).find((received) => received.text.includes(prefix));
        if (!mail) throw new Error(`no e-mail to ${email} with a link ${prefix}…`);
        return mail;
      },
      { timeoutMs: 20_000 },
    );
  }

  it('logs in with a password and out again', async () => {
    const user = await newUser();
    const page = await openPage();
    await page.goto(url('/login'));
    await page.getByLabel('E-mail').fill(user.email);
    await page.getByLabel('Password', { exact: true }).fill('not the password');
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByText('Invalid login credentials.').waitFor();

    await logIn(page, user);
    await page.getByText('You have no items yet', { exact: false }).waitFor();
    await logOut(page);
    await page.goto(url('/items'));
    await heading(page, 'You need to be logged in');
  });

  it('logs in with a code e-mailed to the user', async () => {
    const user = await newUser();
    const page = await openPage();
    await page.goto(url(`/login/email?email=${encodeURIComponent(user.email)}`));
    await page.getByRole('button', { name: 'Send me a login code' }).click();
    await page.waitForURL(/\/login\/code/);
    await page.getByText('We sent a login code').waitFor();

    const prefix = `${publicUrl}/login/code?code=`;
    const code = new URL(linkIn(await mailWithLink(user.email, prefix), prefix)).searchParams.get('code');
    expect(code).toBeTruthy();
    await page.getByLabel('Login code').fill(code as string);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.waitForURL(url('/items'));
    await heading(page, 'My items');
  });

  it('resets a forgotten password with the e-mailed link, and the new password works', async () => {
    const user = await newUser();
    const page = await openPage();
    await page.goto(url('/login'));
    await page.getByRole('link', { name: 'Forgot your password?' }).click();
    await heading(page, 'Forgot your password?');
    await page.getByLabel('E-mail').fill(user.email);
    await page.getByRole('button', { name: 'Send me a link' }).click();
    await page.getByText('we have sent it a link to set a new password').waitFor();

    const prefix = `${publicUrl}/reset-password/`;
    const link = new URL(linkIn(await mailWithLink(user.email, prefix), prefix));
    expect(link.pathname).toMatch(/^\/reset-password\//);
    await page.goto(url(link.pathname));
    await heading(page, 'Reset your password');
    const newPassword = `new-${randomUUID()}`;
    await page.getByLabel('New password').fill(newPassword);
    await page.getByLabel('Repeat password').fill(newPassword);
    await page.getByRole('button', { name: 'Save password' }).click();
    await page.waitForURL(url('/items'));
    await logOut(page);

    await logIn(page, { email: user.email, password: newPassword });
  });

  it('changes the password on the account page', async () => {
    const user = await newUser();
    const page = await openPage();
    await logIn(page, user);
    await page.getByRole('link', { name: 'Account' }).click();
    await heading(page, 'Account');
    expect(await page.getByLabel('E-mail').inputValue()).toBe(user.email);
    const newPassword = `changed-${randomUUID()}`;
    await page.getByLabel('New password').fill(newPassword);
    await page.getByLabel('Repeat password').fill(newPassword);
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Password updated.').first().waitFor();
    await logOut(page);

    await logIn(page, { email: user.email, password: newPassword });
  });

  it('adds, renames and deletes an item', async () => {
    const user = await newUser();
    const page = await openPage();
    await logIn(page, user);

    await page.getByRole('link', { name: 'Add an item' }).click();
    await heading(page, 'Add an item');
    await page.getByLabel('Name').fill('Blue bike');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.waitForURL(/\/found\/[0-9A-Z]{4}-/);
    await page.getByText('Item saved.').waitFor();

    await page.getByRole('link', { name: 'My items' }).click();
    await page.getByRole('link', { name: 'Blue bike', exact: true }).waitFor();
    await page.locator('.item-card img.qr').waitFor();
    await page.getByRole('link', { name: 'Edit: Blue bike' }).click();
    await heading(page, 'Edit item');
    await page.getByLabel('Name').fill('Red bike');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.waitForURL(/\/found\//);

    await page.getByRole('link', { name: 'My items' }).click();
    await page.getByRole('link', { name: 'Edit: Red bike' }).click();
    await page.getByRole('button', { name: 'Delete item' }).click();
    await page.getByRole('alertdialog', { name: 'Delete this item?' }).waitFor();
    await page.getByRole('button', { name: 'Yes, delete' }).click();
    await page.waitForURL(url('/items'));
    await page.getByText('Item deleted.').waitFor();
    await page.getByText('You have no items yet', { exact: false }).waitFor();
    expect(await page.getByRole('link', { name: 'Red bike', exact: true }).count()).toBe(0);
  });

  it('speaks Dutch and Spanish: chosen in the selector, from the login route, or from the browser’s languages', async () => {
    const page = await openPage();
    await page.goto(url('/login'));
    await page.getByLabel('Language').selectOption('nl');
    await heading(page, 'Inloggen');
    await page.getByText('Wachtwoord vergeten?').waitFor();
    await page.reload();
    await heading(page, 'Inloggen');
    await page.getByLabel('Taal').selectOption('es');
    await heading(page, 'Iniciar sesión');
    await page.goto(url('/forgot-password'));
    await heading(page, '¿Has olvidado tu contraseña?');

    const fresh = await openPage();
    await fresh.goto(url('/login/nl'));
    await heading(fresh, 'Inloggen');

    // No choice stored: the browser's languages, from the gateway's /lang.
    const spanishBrowser = await openPage({ locale: 'es-ES' });
    await spanishBrowser.goto(url('/about'));
    await heading(spanishBrowser, 'Sobre Homing');
    // Strings, not functions: they run in the page, and this project compiles without the DOM's types.
    expect(await spanishBrowser.evaluate('document.documentElement.lang')).toBe('es');
  });

  it('has no serious accessibility violation on any screen, and keeps screenshots of each at 360 and 1280 px', async () => {
    const user = await newUser();
    const setUp = await openPage();
    await logIn(setUp, user);
    await setUp.goto(url('/add-item'));
    await setUp.getByLabel('Name').fill('Umbrella');
    await setUp.getByRole('button', { name: 'Save' }).click();
    await setUp.waitForURL(/\/found\//);
    const code = decodeURIComponent(new URL(setUp.url()).pathname.split('/')[2]);
    const token = await setUp.evaluate<string>(`localStorage.getItem(${JSON.stringify(TOKEN_KEY)})`);

    const publicScreens: Array<[string, string]> = [
      ['home', '/'],
      ['about', '/about'],
      ['rewards', '/rewards'],
      ['contact', '/contact'],
      ['register', '/register'],
      ['login', '/login'],
      ['login-email', '/login/email'],
      ['login-code', '/login/code'],
      ['forgot-password', '/forgot-password'],
      ['reset-password', '/reset-password/some-token'],
      ['set-password', '/set-password/some-token'],
      ['not-found', '/not-found'],
      ['not-logged-in', '/account'],
    ];
    const ownerScreens: Array<[string, string]> = [
      ['my-items', '/items'],
      ['add-item', '/add-item'],
      ['edit-item', `/item/${code}`],
      ['account', '/account'],
    ];
    const violations: string[] = [];
    for (const viewport of Object.keys(VIEWPORTS) as Array<keyof typeof VIEWPORTS>) {
      const visitor = await openPage({ viewport });
      const owner = await openPage({ viewport });
      await owner.goto(url('/'));
      await owner.evaluate(`localStorage.setItem(${JSON.stringify(TOKEN_KEY)}, ${JSON.stringify(token)})`);
      for (const [page, screens] of [
        [visitor, publicScreens],
        [owner, ownerScreens],
      ] as const) {
        for (const [name, path] of screens) {
          await page.goto(url(path));
          await page.locator('main h1').first().waitFor();
          // QR images in place, so the screenshot shows them rather than their placeholders.
          if (name === 'my-items' || name === 'edit-item') await page.locator('img.qr').first().waitFor();
          violations.push(...(await seriousViolations(page)).map((violation) => `${name} (${viewport}): ${violation}`));
          await screenshot(page, `${name}-${VIEWPORTS[viewport].width}`);
        }
      }
      // Forms with their errors showing, too.
      await visitor.goto(url('/login'));
      await visitor.getByRole('button', { name: 'Log in' }).click();
      await visitor.getByText('This field is required.').first().waitFor();
      violations.push(...(await seriousViolations(visitor)).map((violation) => `login errors (${viewport}): ${violation}`));
      await screenshot(visitor, `login-errors-${VIEWPORTS[viewport].width}`);
    }
    expect(violations).toEqual([]);
  });
  /** A new user activates a tag from its found page and names the item; the page they end on is the owner's thread. */
  async function activateAsNewUser(page: Page, tag: string, itemName: string, texts = ENGLISH) {
    await page.goto(url(`/found/${tag}`));
    await page.waitForURL(url(`/activate/${tag}`));
    await page.getByLabel(texts.email).fill(`owner-${randomUUID()}@example.test`);
    await page.getByRole('button', { name: texts.activate }).click();
    await heading(page, texts.confirmTitle);
    await page.getByRole('button', { name: texts.confirm }).click();
    await heading(page, texts.setPasswordTitle);
    await page.getByLabel(texts.passwordOptional).fill(`pw-${randomUUID()}`);
    await page.getByRole('button', { name: texts.finish }).click();
    await heading(page, texts.doneTitle);
    await page.getByRole('link', { name: texts.nameItem }).click();
    await page.getByLabel(texts.name).fill(itemName);
    await page.getByRole('button', { name: texts.save }).click();
    await page.waitForURL(url(`/found/${tag}`));
    await heading(page, itemName);
    await page.getByText(texts.noMessages).waitFor();
  }

  const ENGLISH = {
    email: 'E-mail',
    activate: 'Activate',
    confirmTitle: 'Is this your e-mail address?',
    confirm: 'Confirm',
    setPasswordTitle: 'Set a password',
    passwordOptional: 'Password (optional)',
    finish: 'Finish',
    doneTitle: 'Your tag is activated',
    nameItem: 'Name your item',
    name: 'Name',
    save: 'Save',
    noMessages: 'No messages yet.',
    finderTitle: "You found someone's item",
    message: 'Message',
    finderEmail: 'Your e-mail (optional)',
    sendFirst: 'Send to the owner',
    sendReply: 'Send reply',
    messages: 'Messages',
    unread: '1 unread messages',
    reset: 'Reset item',
    resetConfirm: 'Yes, reset',
    resetDone: 'Item reset.',
  };
  const DUTCH: typeof ENGLISH = {
    email: 'E-mail',
    activate: 'Activeren',
    confirmTitle: 'Is dit je e-mailadres?',
    confirm: 'Bevestigen',
    setPasswordTitle: 'Stel een wachtwoord in',
    passwordOptional: 'Wachtwoord (optioneel)',
    finish: 'Afronden',
    doneTitle: 'Je tag is geactiveerd',
    nameItem: 'Geef je voorwerp een naam',
    name: 'Naam',
    save: 'Opslaan',
    noMessages: 'Nog geen berichten.',
    finderTitle: 'Je hebt andermans voorwerp gevonden',
    message: 'Bericht',
    finderEmail: 'Je e-mailadres (optioneel)',
    sendFirst: 'Verstuur naar de eigenaar',
    sendReply: 'Antwoord versturen',
    messages: 'Berichten',
    unread: '1 ongelezen berichten',
    reset: 'Voorwerp resetten',
    resetConfirm: 'Ja, resetten',
    resetDone: 'Voorwerp gereset.',
  };

  /**
   * The whole conversation in two browsers: activation by a new user, a finder's first message with an e-mail, the
   * owner's unread badge and reply, the reply reaching the finder without a reload, a second finder who sees nothing
   * of it, and a reset that empties the thread.
   */
  async function conversationWalk(locale: string, texts: typeof ENGLISH, shots: boolean) {
    const tag = unclaimedTag();
    const owner = await openPage({ locale });
    await activateAsNewUser(owner, tag, 'Blue backpack', texts);
    // Away from the thread while the finder writes: an open thread reads new messages as they come.
    await owner.goto(url('/items'));

    const finder = await openPage({ viewport: 'phone', locale });
    await finder.goto(url(`/found/${tag}`));
    await heading(finder, texts.finderTitle);
    if (shots) await screenshot(finder, 'finder-page-360');
    const finderEmail = `finder-${randomUUID()}@example.test`;
    await finder.getByLabel(texts.message, { exact: true }).fill('I found your backpack\nat the station');
    await finder.getByLabel(texts.finderEmail).fill(finderEmail);
    await finder.getByRole('button', { name: texts.sendFirst }).click();
    await finder.getByRole('button', { name: texts.sendReply }).waitFor();
    const finderThread = finder.getByRole('list', { name: texts.messages });
    await finderThread.getByText('at the station').waitFor();

    await owner.goto(url(`/found/${tag}`));
    await owner.getByLabel(texts.unread).waitFor();
    await owner.getByText('I found your backpack').waitFor();
    await owner.getByLabel(texts.message, { exact: true }).fill('Thank you! I can pick it up at 5.');
    await owner.getByRole('button', { name: texts.sendReply }).click();
    await owner.getByText('Thank you! I can pick it up at 5.').waitFor();
    if (shots) await screenshot(owner, 'owner-thread-1280');

    // No reload: the event stream (or the 3 s poll) brings the reply.
    await finderThread.getByText('Thank you! I can pick it up at 5.').waitFor({ timeout: 15_000 });
    // The owner's reply is relayed to the address the finder left, never showing it to the owner.
    const [relayed] = await stack.mail.waitForMails(finderEmail, 1, 30_000);
    expect(relayed.text ?? '').toContain(tag);

    const secondFinder = await openPage({ locale });
    await secondFinder.goto(url(`/found/${tag}`));
    await heading(secondFinder, texts.finderTitle);
    await secondFinder.getByRole('button', { name: texts.sendFirst }).waitFor();
    if (shots) await screenshot(secondFinder, 'finder-page-1280');
    expect(await secondFinder.getByText('I found your backpack').count()).toBe(0);
    expect(await secondFinder.getByText('Thank you! I can pick it up at 5.').count()).toBe(0);

    await owner.getByRole('button', { name: texts.reset }).click();
    await owner.getByRole('button', { name: texts.resetConfirm }).click();
    await owner.getByText(texts.resetDone).waitFor();
    await owner.getByText(texts.noMessages).waitFor();
    // The finder's conversation is gone: their page offers a first message again.
    await finder.getByRole('button', { name: texts.sendFirst }).waitFor({ timeout: 15_000 });
    expect(await finder.getByText('Thank you! I can pick it up at 5.').count()).toBe(0);
  }

  it('carries a conversation between a finder and the owner who activated the tag, in two browsers', async () => {
    await conversationWalk('en-GB', ENGLISH, true);
  });

  it('carries the same conversation in Dutch', async () => {
    await conversationWalk('nl-NL', DUTCH, false);
  });

  it('activates a tag for an existing, logged-in user', async () => {
    const user = await newUser();
    const page = await openPage();
    await logIn(page, user);
    const tag = unclaimedTag();
    await page.goto(url(`/activate/${tag}`));
    await page.getByText(`Activate this tag for your account (${user.email}).`).waitFor();
    await page.getByRole('button', { name: 'Activate' }).click();
    await page.getByText('The tag is added to your items.').waitFor();
    await page.goto(url(`/activate/${tag}`));
    await heading(page, 'This tag is already activated');
  });
});
