import { randomUUID } from 'node:crypto';
import { expectEventually, linkIn, runServiceCommand, type ReceivedMail, type SinkSubscription } from '@homing/testing';
import type { Page } from 'playwright-core';
import { startStack, type Stack } from '../support/stack';
import { appTookOver, chromiumForSuite, flashAfter, heading, layoutShifts, logIn as logInAt, newContext, pushReadyPage as pushReadyPageAt, screenshot, seriousViolations, VIEWPORTS, watchLayoutShifts, FINDER_PAGE_CODE } from './browser';
import { untilMessagingKnows } from './owners';

// The web app in Chromium against the whole product, as a user meets it: every flow through the screens, the
// e-mails read from the stack's SMTP sink.
// Where the web app keeps its access token (apps/web/src/lib/api-session.ts).
const TOKEN_KEY = 'homing.token';

describe('the web app in a browser', () => {
  let stack: Stack;
  // Unclaimed tags minted before the services start, as the items service's `seed-tags` command does for development.
  let tags: string[] = [];
  const unclaimedTag = () => {
    const tag = tags.shift();
    if (!tag) throw new Error('the suite minted too few tags');
    return tag;
  };

  beforeAll(async () => {
    stack = await startStack({
      env: { gateway: { TRUSTED_PROXIES: '127.0.0.1,::1' }, notifications: { PUBLIC_URL: publicUrl } },
      beforeStart: async ({ envOf }) => {
        tags = (await runServiceCommand('items', ['seed-tags', '--count', '10'], envOf('items'))).trim().split('\n');
      },
    });
  });

  afterAll(() => stack?.stop());

  const { openContext, openPage } = chromiumForSuite();

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

  /** A finder's message about an item, through the API; without a finder token it starts a new conversation. */
  async function writeAsFinder(code: string, content: string, finderToken?: string) {
    const response = await fetch(`${stack.api}/items/${code}/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': `10.201.${Math.floor(Math.random() * 250)}.1`, ...(finderToken ? { 'x-finder-token': finderToken } : {}) },
      body: JSON.stringify({ content }),
    });
    expect(response.status).toBe(201);
    return (await response.json()) as { message: { id: number; conversation_id: string }; finder_token?: string };
  }

  const logIn = (page: Page, user: { email: string; password: string }) => logInAt(page, stack.base, user);

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
    await page.getByRole('button', { name: 'Log in', exact: true }).click();
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
    await page.getByRole('button', { name: 'Log in', exact: true }).click();
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

    await page.getByRole('link', { name: 'Add an item', exact: true }).click();
    await heading(page, 'Add an item');
    await page.getByLabel('Name').fill('Blue bike');
    await flashAfter(page, 'Item saved.', () => page.getByRole('button', { name: 'Save' }).click());
    await page.waitForURL(/\/found\/[0-9A-Z]{4}-/);

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
    // The app sends at most 25 requests in a burst, then 2 a second, and refuses the rest in the browser (spec §9: the
    // client rate limit). The screens above asked for some 30 within seconds, so the deletion, or the list after it
    // (whose error flash would replace "Item deleted."), could be refused; a wait of five tokens' refill did not always
    // suffice under CI's timing. The pool lives in the page: coming back to the item later starts with a full one, as
    // this reload does, and the test no longer depends on how fast the screens above ran.
    await page.reload();
    await heading(page, 'Edit item');
    await page.getByRole('button', { name: 'Delete item' }).click();
    await page.getByRole('alertdialog', { name: 'Delete this item?' }).waitFor();
    await flashAfter(page, 'Item deleted.', () => page.getByRole('button', { name: 'Yes, delete' }).click());
    await page.waitForURL(url('/items'));
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

  // Every screen in three languages at two widths: minutes on a loaded two-core machine, beyond the suite's 2 minutes.
  it('has no serious accessibility violation on any screen, and keeps screenshots of each at 360 and 1280 px', async () => {
    const owned = await newUser();
    const setUp = await openPage();
    await logIn(setUp, owned);
    await setUp.goto(url('/add-item'));
    await setUp.getByLabel('Name').fill('Umbrella');
    await setUp.getByRole('button', { name: 'Save' }).click();
    await setUp.waitForURL(/\/found\//);
    const code = decodeURIComponent(new URL(setUp.url()).pathname.split('/')[2]);
    const ownerToken = await setUp.evaluate<string>(`localStorage.getItem(${JSON.stringify(TOKEN_KEY)})`);
    // A finder has written, so the owner's thread has a message to show.
    await untilMessagingKnows(stack, ownerToken, code);
    await writeAsFinder(code, 'Found your umbrella at the café');
    const emptyOwner = await openPage();
    await logIn(emptyOwner, await newUser());
    const emptyOwnerToken = await emptyOwner.evaluate<string>(`localStorage.getItem(${JSON.stringify(TOKEN_KEY)})`);

    // [screenshot name, path, what to wait for or do once the page's heading shows]
    type Screen = [string, string, ((page: Page) => Promise<void>)?];
    const qrShown = (page: Page) => page.locator('img.qr').first().waitFor();
    const publicScreens: Screen[] = [
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
      ['finder-page', `/found/${code}`, (page) => page.getByRole('button', { name: ENGLISH.sendFirst, disabled: false }).waitFor()],
      // Forms with their errors showing, too.
      [
        'login-errors',
        '/login',
        async (page) => {
          await page.getByRole('button', { name: 'Log in', exact: true }).click();
          await page.getByText('This field is required.').first().waitFor();
        },
      ],
    ];
    const ownerScreens: Screen[] = [
      // QR images in place, so the screenshot shows them rather than their placeholders.
      ['my-items', '/items', qrShown],
      ['add-item', '/add-item'],
      ['edit-item', `/item/${code}`, qrShown],
      [
        'delete-confirmation',
        `/item/${code}`,
        async (page) => {
          await page.getByRole('button', { name: 'Delete item' }).click();
          await page.getByRole('alertdialog', { name: 'Delete this item?' }).waitFor();
        },
      ],
      ['item-not-found', '/item/ZZZZ-ZZZZ-ZZZZ-ZZZZ', (page) => heading(page, 'Item not found')],
      ['account', '/account'],
      ['set-password-logged-in', '/set-password/some-token', (page) => page.getByText('You are logged in.', { exact: false }).waitFor()],
      [
        'owner-thread',
        `/found/${code}`,
        async (page) => {
          await page.getByText('Found your umbrella at the café').waitFor();
          await declinePush(page, ENGLISH);
        },
      ],
    ];
    const emptyOwnerScreens: Screen[] = [['my-items-empty', '/items', (page) => page.getByText('You have no items yet', { exact: false }).waitFor()]];
    // A profile of its own: the route's language is stored as the visitor's choice.
    const dutchVisitorScreens: Screen[] = [['login-nl', '/login/nl', (page) => heading(page, 'Inloggen')]];

    const violations: string[] = [];
    for (const viewport of Object.keys(VIEWPORTS) as Array<keyof typeof VIEWPORTS>) {
      // The owner's thread offers pushes, and that offer is one of the screens.
      const loggedIn = async (token: string, push = false) => {
        const page = await openPage({ viewport, push });
        await page.goto(url('/'));
        await page.evaluate(`localStorage.setItem(${JSON.stringify(TOKEN_KEY)}, ${JSON.stringify(token)})`);
        return page;
      };
      for (const [page, screens] of [
        [await openPage({ viewport }), publicScreens],
        [await loggedIn(ownerToken, true), ownerScreens],
        [await loggedIn(emptyOwnerToken), emptyOwnerScreens],
        [await openPage({ viewport }), dutchVisitorScreens],
      ] as const) {
        for (const [name, path, ready] of screens) {
          await page.goto(url(path));
          await page.locator('main h1').first().waitFor();
          await ready?.(page);
          violations.push(...(await seriousViolations(page)).map((violation) => `${name} (${viewport}): ${violation}`));
          // Usable on a 360 px phone: nothing runs off the side.
          const width = await page.evaluate<number>('document.documentElement.scrollWidth');
          if (width > VIEWPORTS[viewport].width) violations.push(`${name} (${viewport}): ${width} px wide, wider than the screen`);
          await screenshot(page, `${name}-${VIEWPORTS[viewport].width}`);
        }
      }
    }
    expect(violations).toEqual([]);
  }, 600_000);
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
    unread: '1 unread message',
    reset: 'Reset item',
    resetConfirm: 'Yes, reset',
    resetDone: 'Item reset.',
    pushTitle: 'Get notified of new messages?',
    pushAccept: 'Yes, notify me',
    pushDecline: 'Not now',
    pushOn: 'Notifications are on for this device.',
  };
  const DUTCH: typeof ENGLISH = {
    email: 'E-mail',
    activate: 'Activeren',
    confirmTitle: 'Is dit je e-mailadres?',
    confirm: 'Bevestigen',
    setPasswordTitle: 'Stel een wachtwoord in',
    passwordOptional: 'Wachtwoord (optioneel)',
    finish: 'Afronden',
    doneTitle: 'Je label is geactiveerd',
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
    unread: '1 ongelezen bericht',
    reset: 'Voorwerp resetten',
    resetConfirm: 'Ja, resetten',
    resetDone: 'Voorwerp gereset.',
    pushTitle: 'Meldingen krijgen van nieuwe berichten?',
    pushAccept: 'Ja, geef me een melding',
    pushDecline: 'Niet nu',
    pushOn: 'Meldingen staan aan op dit apparaat.',
  };
  const SPANISH: typeof ENGLISH = {
    email: 'Correo electrónico',
    activate: 'Activar',
    confirmTitle: '¿Es este tu correo electrónico?',
    confirm: 'Confirmar',
    setPasswordTitle: 'Elige una contraseña',
    passwordOptional: 'Contraseña (opcional)',
    finish: 'Terminar',
    doneTitle: 'Tu etiqueta está activada',
    nameItem: 'Ponle nombre a tu objeto',
    name: 'Nombre',
    save: 'Guardar',
    noMessages: 'Todavía no hay mensajes.',
    finderTitle: 'Has encontrado un objeto de otra persona',
    message: 'Mensaje',
    finderEmail: 'Tu correo electrónico (opcional)',
    sendFirst: 'Enviar al propietario',
    sendReply: 'Enviar respuesta',
    messages: 'Mensajes',
    unread: '1 mensaje sin leer',
    reset: 'Restablecer objeto',
    resetConfirm: 'Sí, restablecer',
    resetDone: 'Objeto restablecido.',
    pushTitle: '¿Quieres recibir avisos de nuevos mensajes?',
    pushAccept: 'Sí, avísame',
    pushDecline: 'Ahora no',
    pushOn: 'Los avisos están activados en este dispositivo.',
  };

  async function declinePush(page: Page, texts: typeof ENGLISH) {
    const offer = page.getByRole('dialog', { name: texts.pushTitle });
    await offer.getByRole('button', { name: texts.pushDecline }).click();
    await offer.waitFor({ state: 'detached' });
  }

  /**
   * The whole conversation in two browsers: activation by a new user, a finder's first message with an e-mail, the
   * owner's unread badge and reply, the reply reaching the finder without a reload, a second finder who sees nothing
   * of it, and a reset that empties the thread.
   */
  async function conversationWalk(locale: string, texts: typeof ENGLISH, shots: boolean) {
    const tag = unclaimedTag();
    // Both meet the push offer once they have written or read: the full browser, which has the Push API.
    const owner = await openPage({ locale, push: true });
    await activateAsNewUser(owner, tag, 'Blue backpack', texts);
    // Away from the thread while the finder writes: an open thread reads new messages as they come.
    await owner.goto(url('/items'));

    const finder = await openPage({ viewport: 'phone', locale, push: true });
    await finder.goto(url(`/found/${tag}`));
    await heading(finder, texts.finderTitle);
    // The app takes the server-rendered page over before anyone types: a click on the server's form before the
    // app runs posts it without script (the no-JS journey), which is another test's.
    await appTookOver(finder);
    const finderEmail = `finder-${randomUUID()}@example.test`;
    await finder.getByLabel(texts.message, { exact: true }).fill('I found your backpack\nat the station');
    await finder.getByLabel(texts.finderEmail).fill(finderEmail);
    await finder.getByRole('button', { name: texts.sendFirst }).click();
    await finder.getByRole('button', { name: texts.sendReply }).waitFor();
    // Once they have written, the finder is offered pushes of the owner's reply; declining puts it off for an hour.
    await declinePush(finder, texts);
    const finderThread = finder.getByRole('list', { name: texts.messages });
    await finderThread.getByText('at the station').waitFor();

    await owner.goto(url(`/found/${tag}`));
    await owner.getByLabel(texts.unread, { exact: true }).waitFor();
    await owner.getByText('I found your backpack').waitFor();
    await declinePush(owner, texts);
    await owner.getByLabel(texts.message, { exact: true }).fill('Thank you! I can pick it up at 5.');
    await owner.getByRole('button', { name: texts.sendReply }).click();
    await owner.getByText('Thank you! I can pick it up at 5.').waitFor();
    if (shots) await screenshot(owner, 'owner-thread-replied-1280');

    // No reload: the event stream (or the 3 s poll) brings the reply.
    await finderThread.getByText('Thank you! I can pick it up at 5.').waitFor({ timeout: 15_000 });
    // The owner's reply is relayed to the address the finder left, never showing it to the owner.
    const [relayed] = await stack.mail.waitForMails(finderEmail, 1, 30_000);
    expect(relayed.text ?? '').toContain(tag);

    const secondFinder = await openPage({ locale });
    await secondFinder.goto(url(`/found/${tag}`));
    await heading(secondFinder, texts.finderTitle);
    await secondFinder.getByRole('button', { name: texts.sendFirst }).waitFor();
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

  it('carries the same conversation in Spanish', async () => {
    await conversationWalk('es-ES', SPANISH, false);
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
  /**
   * A browser whose push subscription is one of the stack's push service: Chromium here has no push service of its
   * own, so `PushManager.prototype.subscribe` answers with the sink's subscription, which the server then pushes to.
   */
  const pushReadyPage = (subscription: SinkSubscription, options: Parameters<typeof newContext>[1] = {}) => pushReadyPageAt(openContext, stack.base, subscription, options);

  /**
   * Hands a push's payload to the page's service worker as the browser's push service would (DevTools protocol), and
   * waits for the notification it shows. The DevTools session stays attached until then: the push event's work (a
   * Cache storage read, then `showNotification`) outlives the command's answer, and a detached session no longer
   * keeps the worker awake for it. A notification that never comes is reported with the worker's states meanwhile.
   */
  async function pushShown(page: Page, data: string, title: string, timeoutMs = 10_000) {
    const cdp = await page.context().newCDPSession(page);
    const states: string[] = [];
    cdp.on('ServiceWorker.workerVersionUpdated', ({ versions }) => {
      for (const version of versions) states.push(`${version.versionId}:${version.status}/${version.runningStatus}`);
    });
    const registration = new Promise<string>((resolve) => {
      cdp.on('ServiceWorker.workerRegistrationUpdated', ({ registrations }) => {
        const found = registrations.find((candidate) => candidate.scopeURL === `${stack.base}/` && !candidate.isDeleted);
        if (found) resolve(found.registrationId);
      });
    });
    try {
      await cdp.send('ServiceWorker.enable');
      await cdp.send('ServiceWorker.deliverPushMessage', { origin: stack.base, registrationId: await registration, data });
      return await waitForNotification(page, title, timeoutMs).catch((error: Error) => {
        throw new Error(`${error.message}; the service worker's states meanwhile: ${states.join(', ') || 'none reported'}`);
      });
    } finally {
      await cdp.detach().catch(() => undefined);
    }
  }

  /** The notifications the page's service worker shows, newest last. */
  function shownNotifications(page: Page): Promise<Array<{ title: string; body: string; url: string }>> {
    return page.evaluate(
      'navigator.serviceWorker.ready.then((r) => r.getNotifications()).then((all) => all.map((n) => ({ title: n.title, body: n.body, url: n.data && n.data.url })))',
    );
  }

  async function waitForNotification(page: Page, title: string, timeoutMs: number) {
    return expectEventually(
      async () => {
        const shown = await shownNotifications(page);
        const notification = shown.find((candidate) => candidate.title === title);
        if (!notification) throw new Error(`no notification "${title}" among ${JSON.stringify(shown)}`);
        return notification;
      },
      { timeoutMs },
    );
  }

  it('serves the service worker uncached as JavaScript', async () => {
    const response = await fetch(url('/sw.js'));
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^(application|text)\/javascript/);
    expect(response.headers.get('cache-control')).toBe('no-cache');
    expect(await response.text()).toContain('LANG_UPDATE');
  });

  it('pushes the owner’s reply to the finder and the finder’s message to the owner, shown by the service worker in each one’s language', async () => {
    const tag = unclaimedTag();
    const setUp = await openPage();
    await activateAsNewUser(setUp, tag, 'Green scarf');
    const ownerToken = await setUp.evaluate<string>(`localStorage.getItem(${JSON.stringify(TOKEN_KEY)})`);

    // The finder, in Dutch, subscribes to the item once they have written.
    const finderSubscription = stack.push.subscribe();
    const finder = await pushReadyPage(finderSubscription, { locale: 'nl-NL', viewport: 'phone' });
    await finder.goto(url(`/found/${tag}`));
    await heading(finder, DUTCH.finderTitle);
    // The app takes the server-rendered page over before anyone types: a click on the server's form before the
    // app runs posts it without script (the no-JS journey), which is another test's.
    await appTookOver(finder);
    await finder.getByLabel(DUTCH.message, { exact: true }).fill('Ik heb je sjaal gevonden');
    await finder.getByRole('button', { name: DUTCH.sendFirst }).click();
    const finderOffer = finder.getByRole('dialog', { name: DUTCH.pushTitle });
    await finderOffer.waitFor();
    await finder.evaluate('navigator.serviceWorker.ready.then(() => true)');
    await finderOffer.getByRole('button', { name: DUTCH.pushAccept }).click();
    await finder.getByText(DUTCH.pushOn).waitFor();

    // The owner, in English, subscribes as a user on their thread.
    const ownerSubscription = stack.push.subscribe();
    const owner = await pushReadyPage(ownerSubscription);
    await owner.goto(url('/'));
    await owner.evaluate(`localStorage.setItem(${JSON.stringify(TOKEN_KEY)}, ${JSON.stringify(ownerToken)})`);
    await owner.goto(url(`/found/${tag}`));
    await owner.getByText('Ik heb je sjaal gevonden').waitFor();
    await owner.evaluate('navigator.serviceWorker.ready.then(() => true)');
    await owner.getByRole('dialog', { name: ENGLISH.pushTitle }).getByRole('button', { name: ENGLISH.pushAccept }).click();
    await owner.getByText(ENGLISH.pushOn).waitFor();

    await owner.getByLabel(ENGLISH.message, { exact: true }).fill('Dank je! Ik kom hem halen.');
    await owner.getByRole('button', { name: ENGLISH.sendReply }).click();
    const [toFinder] = await stack.push.waitForPushes(finderSubscription, 1, 30_000);
    // The finder's push names the language they wrote in.
    expect(toFinder.payload).toEqual({ kind: 'new-message', author: 'owner', url: `/found/${tag}`, language: 'nl' });

    await finder.getByRole('list', { name: DUTCH.messages }).getByText('Dank je! Ik kom hem halen.').waitFor({ timeout: 15_000 });
    await finder.getByLabel(DUTCH.message, { exact: true }).fill('Prima, tot straks');
    await finder.getByRole('button', { name: DUTCH.sendReply }).click();
    const toOwner = await expectEventually(
      () => {
        const push = stack.push.pushesTo(ownerSubscription).find((candidate) => (candidate.payload as { author?: string }).author === 'finder');
        if (!push) throw new Error('no push of the finder’s message to the owner yet');
        return push;
      },
      { timeoutMs: 30_000 },
    );
    expect(toOwner.payload).toEqual({ kind: 'new-message', author: 'finder', url: `/found/${tag}` });

    // Each push, handed to the browser's service worker, is shown in that browser's language and leads to the thread.
    expect(await pushShown(finder, toFinder.text, 'De eigenaar heeft geantwoord')).toEqual({
      title: 'De eigenaar heeft geantwoord',
      body: 'De eigenaar van het voorwerp dat je vond, heeft op je bericht geantwoord. Tik om het te lezen.',
      url: `/found/${tag}`,
    });
    expect((await pushShown(owner, toOwner.text, 'New message about your item')).url).toBe(`/found/${tag}`);

    // A language chosen later reaches the service worker (LANG_UPDATE) and words the next push.
    await finder.getByLabel('Taal').selectOption('es');
    await heading(finder, 'Has encontrado un objeto de otra persona');
    // Until the new language has reached the worker, a push is worded in the old one: pushed again.
    await expectEventually(() => pushShown(finder, toFinder.text, 'El propietario ha respondido', 5_000), { timeoutMs: 20_000 });
  });
  it('sends the finder page’s text and form in its HTML, usable before the app’s code has loaded', async () => {
    const tag = unclaimedTag();
    await activateAsNewUser(await openPage(), tag, 'Black wallet');

    const response = await fetch(url(`/found/${tag}`));
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-cache');
    const html = await response.text();
    expect(html).toContain('<h1>You found someone&#x27;s item</h1>');
    expect(html).toMatch(/<form[^>]*>[\s\S]*<label[^>]*>Message<\/label><textarea[\s\S]*<input[^>]*type="email"[\s\S]*>Send to the owner<\/button><\/form>/);

    // A phone that has not run a line of script yet already shows the page and takes the message.
    const scriptless = await openContext((browser) => browser.newContext({ javaScriptEnabled: false, viewport: VIEWPORTS.phone }));
    const bare = await scriptless.newPage();
    await bare.goto(url(`/found/${tag}`));
    await heading(bare, ENGLISH.finderTitle);
    await bare.getByLabel(ENGLISH.message, { exact: true }).fill('Typed before the app loaded');
    await screenshot(bare, 'finder-page-before-script-360');

    // What the finder typed while the page's code was on its way is still there when the app takes over.
    const finder = await openPage({ viewport: 'phone' });
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    await finder.route(FINDER_PAGE_CODE, async (route) => {
      await held;
      await route.continue();
    });
    await finder.goto(url(`/found/${tag}`), { waitUntil: 'commit' });
    // (Not until `load`: the held script is the page's own, which the load event waits for.)
    await finder.getByLabel(ENGLISH.message, { exact: true }).fill('I found it on the bus');
    await finder.getByLabel(ENGLISH.finderEmail).fill('finder@example.test');
    release();
    // The page the gateway rendered sends on its own (a form post); wait for the app's, which sends with script.
    await appTookOver(finder);
    expect(await finder.getByLabel(ENGLISH.message, { exact: true }).inputValue()).toBe('I found it on the bus');
    expect(await finder.getByLabel(ENGLISH.finderEmail).inputValue()).toBe('finder@example.test');
    // And the finder is still typing where they were.
    expect(await finder.evaluate('document.activeElement && document.activeElement.getAttribute("type")')).toBe('email');
    await finder.getByRole('button', { name: ENGLISH.sendFirst }).click();
    await finder.getByRole('list', { name: ENGLISH.messages }).getByText('I found it on the bus').waitFor();

    // Nothing on the page moves as the app takes the prerendered page's place (cumulative layout shift 0). Each shift
    // is kept with what moved, from where to where, so a failure says which element it was.
    const visitor = await openPage({ viewport: 'phone' });
    const scripts: string[] = [];
    visitor.on('request', (request) => void (request.resourceType() === 'script' && scripts.push(new URL(request.url()).pathname)));
    await watchLayoutShifts(visitor);
    await visitor.goto(url(`/found/${tag}`));
    await appTookOver(visitor);
    // The finder page's own entry took it over (issue 29): the app's entry, with its router and other screens, was
    // never fetched, nor TanStack Query (the finder's page asks its queries through its own small store).
    expect(scripts.filter((path) => path.startsWith('/assets/finder-main-'))).toHaveLength(1);
    expect(scripts.filter((path) => /^\/assets\/(index|main|query)-/.test(path))).toEqual([]);
    await visitor.evaluate('new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)))');
    expect(await layoutShifts(visitor)).toEqual([]);
    expect(await seriousViolations(visitor)).toEqual([]);
  });
  it('shows the owner older messages 5 at a time, and answers the finder the owner picks', async () => {
    const user = await newUser();
    // The owner meets the push offer in the thread: the full browser.
    const owner = await openPage({ push: true });
    await logIn(owner, user);
    await owner.goto(url('/add-item'));
    await owner.getByLabel('Name').fill('Brown bag');
    await owner.getByRole('button', { name: 'Save' }).click();
    await owner.waitForURL(/\/found\//);
    const code = decodeURIComponent(new URL(owner.url()).pathname.split('/')[2]);
    await untilMessagingKnows(stack, await owner.evaluate<string>(`localStorage.getItem(${JSON.stringify(TOKEN_KEY)})`), code);

    const write = (content: string, finderToken?: string) => writeAsFinder(code, content, finderToken);
    const read = async (finderToken: string) => {
      const response = await fetch(`${stack.api}/items/${code}/messages`, { headers: { 'x-finder-token': finderToken, 'x-forwarded-for': '10.202.0.1' } });
      return ((await response.json()) as Array<{ content: string }>).map((message) => message.content);
    };

    // The first finder wrote weeks ago: 12 messages between 30 and 19 days old (written now, then dated back).
    const first = await write('old 1');
    const firstToken = first.finder_token as string;
    for (let index = 2; index <= 12; index += 1) await write(`old ${index}`, firstToken);
    await stack.db.query(
      `UPDATE "${stack.schemaOf('messaging')}".messages SET created_at = now() - make_interval(days => 31 - (id - $2::bigint + 1)::int) WHERE conversation_id = $1`,
      [first.message.conversation_id, first.message.id],
    );
    await write('first finder, still there?', firstToken);
    const second = await write('second finder here');

    await owner.goto(url(`/found/${code}`));
    await owner.getByText('second finder here').waitFor();
    await declinePush(owner, ENGLISH);
    const thread = owner.getByRole('list', { name: ENGLISH.messages });
    const olderShown = () => thread.getByText(/^old \d+$/).count();
    expect(await olderShown()).toBe(0);
    const showOlder = owner.getByRole('button', { name: 'Show older messages' });
    await showOlder.click();
    expect(await olderShown()).toBe(5);
    await thread.getByText('old 8', { exact: true }).waitFor();
    await showOlder.click();
    expect(await olderShown()).toBe(10);
    await showOlder.click();
    expect(await olderShown()).toBe(12);
    await showOlder.waitFor({ state: 'detached' });

    // Two finders: the reply goes to the one who wrote last, unless the owner picks the other.
    const replyTo = owner.getByLabel('Reply to');
    expect(await replyTo.locator('option:checked').textContent()).toBe('Finder 2');
    await replyTo.selectOption({ label: 'Finder 1' });
    await owner.getByLabel(ENGLISH.message, { exact: true }).fill('Yes, I am here');
    await owner.getByRole('button', { name: ENGLISH.sendReply }).click();
    await thread.getByText('Yes, I am here').waitFor();
    expect(await read(firstToken)).toContain('Yes, I am here');
    expect(await read(second.finder_token as string)).not.toContain('Yes, I am here');
    expect(await seriousViolations(owner)).toEqual([]);
    await screenshot(owner, 'owner-thread-two-finders-1280');
  });
});
