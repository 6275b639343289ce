import type { Page } from 'playwright-core';
import { expectEventually } from '@homing/testing';
import { stackForSuite } from '../support/stack';
import { addVirtualAuthenticator, checkAtBothSizes, chooseLanguage, chromiumForSuite, heading, logIn as logInAt, type VirtualAuthenticator } from './browser';
import { ownerWithItem } from './owners';

// Passkeys in Chromium against the whole product, with a virtual authenticator (DevTools protocol) in place of a
// phone or a security key: added from Account, then logging in with it from /login; a deleted one and another
// account's one are refused as a wrong password is. Pages open at the stack's public URL (localhost): WebAuthn takes
// no IP address as its relying party.

/** What the screens say in each language, as the locales of apps/web word them. */
const TEXTS = {
  en: {
    account: 'Account',
    passkeys: 'Passkeys',
    none: 'You have no passkeys yet.',
    add: 'Add a passkey',
    added: 'Passkey added.',
    defaultName: 'Passkey',
    lastUsed: 'Last used',
    never: 'Never',
    logOut: 'Log out',
    logIn: 'Log in',
    withPasskey: 'Log in with a passkey',
    myItems: 'My items',
  },
  nl: {
    account: 'Account',
    passkeys: 'Toegangssleutels',
    none: 'Je hebt nog geen toegangssleutels.',
    add: 'Toegangssleutel toevoegen',
    added: 'Toegangssleutel toegevoegd.',
    defaultName: 'Toegangssleutel',
    lastUsed: 'Laatst gebruikt',
    never: 'Nooit',
    logOut: 'Uitloggen',
    logIn: 'Inloggen',
    withPasskey: 'Inloggen met een toegangssleutel',
    myItems: 'Mijn spullen',
  },
  es: {
    account: 'Cuenta',
    passkeys: 'Llaves de acceso',
    none: 'Todavía no tienes llaves de acceso.',
    add: 'Añadir una llave de acceso',
    added: 'Llave de acceso añadida.',
    defaultName: 'Llave de acceso',
    lastUsed: 'Último uso',
    never: 'Nunca',
    logOut: 'Cerrar sesión',
    logIn: 'Iniciar sesión',
    withPasskey: 'Iniciar sesión con una llave de acceso',
    myItems: 'Mis objetos',
  },
} as const;
type Language = keyof typeof TEXTS;
const INVALID_CREDENTIALS = 'Invalid login credentials.';

/** The user id an access token names (the app reads the same claim). */
function userIdOf(token: string): string {
  return (JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString('utf8')) as { id: string }).id;
}

describe('passkeys in a browser', () => {
  const stack = stackForSuite({ env: { gateway: { TRUSTED_PROXIES: '127.0.0.1,::1' } } });

  const { openPage } = chromiumForSuite();

  const token = (page: Page) => page.evaluate<string | null>(`localStorage.getItem('homing.token')`);
  const passkeyList = (page: Page, language: Language) => page.getByRole('region', { name: TEXTS[language].passkeys }).getByRole('listitem');

  /**
   * A page at the desktop size whose browser has a virtual authenticator. Chromium answers the e-mail field's passkey
   * suggestions (conditional mediation) at once with a virtual authenticator's passkey, as if the user had picked it:
   * `suggestions: false` is a browser without them, where only the button logs in with a passkey.
   */
  async function pageWithAuthenticator({ suggestions }: { suggestions: boolean }): Promise<{ page: Page; authenticator: VirtualAuthenticator }> {
    const page = await openPage({ viewport: 'desktop' });
    if (!suggestions) await page.addInitScript(`PublicKeyCredential.isConditionalMediationAvailable = () => Promise.resolve(false);`);
    return { page, authenticator: await addVirtualAuthenticator(page) };
  }

  /** How often the authenticator has signed with its (first) passkey: it grows with every assertion. */
  async function signCountOf(authenticator: VirtualAuthenticator): Promise<number> {
    return (await credentialsOf(authenticator))[0].signCount;
  }

  /** Waits until the authenticator has signed since `before` (a login attempt reached it). */
  async function signedSince(authenticator: VirtualAuthenticator, before: number): Promise<void> {
    await expectEventually(async () => expect(await signCountOf(authenticator)).toBeGreaterThan(before));
  }

  async function credentialsOf({ cdp, authenticatorId }: VirtualAuthenticator) {
    return (await cdp.send('WebAuthn.getCredentials', { authenticatorId })).credentials;
  }

  async function openAccount(page: Page, language: Language) {
    await page.goto(`${stack.publicUrl}/account`);
    await heading(page, TEXTS[language].account);
    await page.getByRole('heading', { name: TEXTS[language].passkeys, level: 2 }).waitFor();
  }

  /** Adds a passkey on Account: the virtual authenticator agrees at once, and the list shows it. */
  async function addPasskey(page: Page, language: Language) {
    await page.getByRole('button', { name: TEXTS[language].add, exact: true }).click();
    await passkeyList(page, language).filter({ hasText: TEXTS[language].defaultName }).first().waitFor();
  }

  async function logOut(page: Page, language: Language) {
    await page.locator('header').getByRole('button', { name: TEXTS[language].logOut, exact: true }).click();
    await page.waitForURL(`${stack.publicUrl}/`);
    expect(await token(page)).toBeNull();
  }

  async function openLogin(page: Page, language: Language) {
    await page.goto(`${stack.publicUrl}/login/${language}`);
    await heading(page, TEXTS[language].logIn);
  }

  it('adds a passkey from Account, and it logs in to My items, in en, nl and es, without serious accessibility violations at 360 and 1280 px', async () => {
    const violations: string[] = [];
    for (const language of Object.keys(TEXTS) as Language[]) {
      const texts = TEXTS[language];
      const owner = await ownerWithItem(stack, `Red umbrella (${language})`);
      const { page, authenticator } = await pageWithAuthenticator({ suggestions: false });

      await logInAt(page, stack.publicUrl, owner);
      await chooseLanguage(page, language);
      await openAccount(page, language);
      await page.getByText(texts.none).waitFor();
      await checkAtBothSizes(page, `passkeys-account-empty-${language}`, violations);

      await addPasskey(page, language);
      await page.getByTestId('flash').filter({ hasText: texts.added }).waitFor();
      const entry = passkeyList(page, language).first();
      expect(await entry.getByRole('heading', { level: 3 }).textContent()).toBe(texts.defaultName);
      expect(await entry.textContent()).toContain(texts.never);
      expect(await credentialsOf(authenticator)).toHaveLength(1);
      await checkAtBothSizes(page, `passkeys-account-added-${language}`, violations);

      await logOut(page, language);
      await openLogin(page, language);
      await checkAtBothSizes(page, `passkeys-login-${language}`, violations);
      await page.getByRole('button', { name: texts.withPasskey, exact: true }).click();
      await page.waitForURL(`${stack.publicUrl}/items`);
      await heading(page, texts.myItems);
      // The session is the one a password login gets: a token the gateway takes.
      const session = await token(page);
      expect(session).not.toBeNull();
      const me = await fetch(`${stack.api}/user/me`, { headers: { authorization: `Bearer ${session}` } });
      expect(me.status).toBe(200);
      expect(((await me.json()) as { email: string }).email).toBe(owner.email);

      // Account now says when it was used.
      await openAccount(page, language);
      await passkeyList(page, language).first().getByText(texts.lastUsed).waitFor();
      expect(await passkeyList(page, language).first().textContent()).not.toContain(texts.never);
    }
    expect(violations).toEqual([]);
  });

  it('offers the passkey in the e-mail field of /login, where picking it logs in to My items', async () => {
    const owner = await ownerWithItem(stack, 'Yellow raincoat');
    const { page } = await pageWithAuthenticator({ suggestions: true });
    await logInAt(page, stack.publicUrl, owner);
    await openAccount(page, 'en');
    await addPasskey(page, 'en');
    await logOut(page, 'en');

    // The virtual authenticator picks the suggestion as soon as the field offers it, with nothing clicked, and the
    // login goes where a password login would. The page may have left /login before the field could be read, so
    // the field's autocomplete is checked in the next test, where the login is refused and the page stays.
    await page.goto(`${stack.publicUrl}/login?ec=${owner.code}`);
    await page.waitForURL(`${stack.publicUrl}/item/${owner.code}`);
    expect(await token(page)).not.toBeNull();
  });

  it('renames and deletes a passkey, which then no longer logs in although the authenticator still holds it', async () => {
    const violations: string[] = [];
    const owner = await ownerWithItem(stack, 'Green scarf');
    const { page, authenticator } = await pageWithAuthenticator({ suggestions: true });
    await logInAt(page, stack.publicUrl, owner);
    await openAccount(page, 'en');
    await addPasskey(page, 'en');

    await page.getByRole('button', { name: 'Rename Passkey', exact: true }).click();
    await page.getByLabel('Name', { exact: true }).fill('  Work laptop  ');
    await page.getByRole('region', { name: 'Passkeys' }).getByRole('button', { name: 'Save', exact: true }).click();
    await passkeyList(page, 'en').getByRole('heading', { name: 'Work laptop', exact: true }).waitFor();

    await page.getByRole('button', { name: 'Delete Work laptop', exact: true }).click();
    await page.getByRole('alertdialog', { name: 'Delete this passkey?' }).waitFor();
    await checkAtBothSizes(page, 'passkeys-delete-dialog-en', violations);
    await page.getByRole('button', { name: 'Delete the passkey', exact: true }).click();
    await page.getByText('You have no passkeys yet.').waitFor();
    expect(await credentialsOf(authenticator)).toHaveLength(1);
    await logOut(page, 'en');

    // Offered in the e-mail field and picked: refused.
    const before = await signCountOf(authenticator);
    await openLogin(page, 'en');
    await signedSince(authenticator, before);
    await page.getByRole('alert').filter({ hasText: INVALID_CREDENTIALS }).waitFor();
    // The field that offered it says so to the browser.
    expect(await page.getByLabel('E-mail', { exact: true }).getAttribute('autocomplete')).toBe('username webauthn');
    // And with the button: refused too.
    const beforeButton = await signCountOf(authenticator);
    await page.getByRole('button', { name: 'Log in with a passkey', exact: true }).click();
    await signedSince(authenticator, beforeButton);
    await page.getByRole('alert').filter({ hasText: INVALID_CREDENTIALS }).waitFor();
    await checkAtBothSizes(page, 'passkeys-login-refused-en', violations);
    expect(page.url()).toBe(`${stack.publicUrl}/login/en`);
    expect(await token(page)).toBeNull();
    expect(violations).toEqual([]);
  });

  it('deletes the passkey this browser logged in with: told beforehand, the session ends cleanly and the passkey no longer logs in', async () => {
    const owner = await ownerWithItem(stack, 'Blue gloves');
    const { page, authenticator } = await pageWithAuthenticator({ suggestions: false });
    await logInAt(page, stack.publicUrl, owner);
    await openAccount(page, 'en');
    await addPasskey(page, 'en');
    await logOut(page, 'en');
    await openLogin(page, 'en');
    await page.getByRole('button', { name: 'Log in with a passkey', exact: true }).click();
    await page.waitForURL(`${stack.publicUrl}/items`);
    const session = await token(page);
    expect(session).not.toBeNull();

    await openAccount(page, 'en');
    await page.getByRole('button', { name: 'Delete Passkey', exact: true }).click();
    const dialog = page.getByRole('alertdialog', { name: 'Delete this passkey?' });
    await dialog.getByText('every device logged in with it is logged out: this one too, if you logged in with it', { exact: false }).waitFor();
    await dialog.getByRole('button', { name: 'Delete the passkey', exact: true }).click();
    // The session this browser stood on ended with the passkey: logged out, the page says so, no error screen.
    await heading(page, 'You need to be logged in');
    expect(await token(page)).toBeNull();
    expect(await page.getByText('An error has occurred').count()).toBe(0);
    expect((await fetch(`${stack.api}/user/me`, { headers: { authorization: `Bearer ${session}` } })).status).toBe(401);
    expect(await credentialsOf(authenticator)).toHaveLength(1);
    // And the passkey the authenticator still holds logs in no more.
    const before = await signCountOf(authenticator);
    await openLogin(page, 'en');
    await page.getByRole('button', { name: 'Log in with a passkey', exact: true }).click();
    await signedSince(authenticator, before);
    await page.getByRole('alert').filter({ hasText: INVALID_CREDENTIALS }).waitFor();
    expect(await token(page)).toBeNull();
  });

  it("refuses one account's passkey claimed for another account, and logs in as neither", async () => {
    const first = await ownerWithItem(stack, 'Black wallet');
    const second = await ownerWithItem(stack, 'White cap');
    const { page: firstPage, authenticator: firstAuthenticator } = await pageWithAuthenticator({ suggestions: false });
    await logInAt(firstPage, stack.publicUrl, first);
    await openAccount(firstPage, 'en');
    await addPasskey(firstPage, 'en');
    const [credential] = await credentialsOf(firstAuthenticator);
    expect(credential.userHandle).toBeDefined();

    // The same key in the second browser, under the second account's user handle, encoded as the first one's is.
    const firstHandle = Buffer.from(credential.userHandle ?? '', 'base64');
    const firstId = userIdOf(first.token);
    const secondId = userIdOf(second.token);
    let secondHandle: Buffer;
    if (firstHandle.toString('utf8') === firstId) secondHandle = Buffer.from(secondId, 'utf8');
    else if (firstHandle.toString('hex') === firstId.replace(/-/g, '')) secondHandle = Buffer.from(secondId.replace(/-/g, ''), 'hex');
    else throw new Error(`the user handle ${credential.userHandle} is neither the text nor the bytes of user ${firstId}`);

    const { page: secondPage, authenticator: secondAuthenticator } = await pageWithAuthenticator({ suggestions: false });
    await secondAuthenticator.cdp.send('WebAuthn.addCredential', {
      authenticatorId: secondAuthenticator.authenticatorId,
      credential: { ...credential, userHandle: secondHandle.toString('base64') },
    });
    await openLogin(secondPage, 'en');
    await secondPage.getByRole('button', { name: 'Log in with a passkey', exact: true }).click();
    // The second browser signed with it, and the server refused it.
    await signedSince(secondAuthenticator, credential.signCount);
    await secondPage.getByRole('alert').filter({ hasText: INVALID_CREDENTIALS }).waitFor();
    expect(secondPage.url()).toBe(`${stack.publicUrl}/login/en`);
    expect(await token(secondPage)).toBeNull();
  });
});
