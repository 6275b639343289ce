import type { Page } from 'playwright-core';
import { stackForSuite } from '../support/stack';
import { chromiumForSuite, heading, logIn as logInAt, screenshot, seriousViolations, VIEWPORTS } from './browser';
import { ownerWithItem } from './owners';

// Deleting the account from the Account screen in Chromium against the whole product: in each language an owner with
// an item confirms with their password, lands on the home page told so, and can no longer log in.

/** What the screens say in each language, as the locales of apps/web word them. */
const TEXTS = {
  en: {
    title: 'Account',
    section: 'Delete my account',
    button: 'Delete my account',
    dialog: 'Delete your account?',
    password: 'Password',
    confirm: 'Delete my account for good',
    deleted: 'Your account has been deleted.',
    email: 'E-mail',
    logIn: 'Log in',
    invalidCredentials: 'Invalid login credentials.',
  },
  nl: {
    title: 'Account',
    section: 'Mijn account verwijderen',
    button: 'Mijn account verwijderen',
    dialog: 'Je account verwijderen?',
    password: 'Wachtwoord',
    confirm: 'Mijn account definitief verwijderen',
    deleted: 'Je account is verwijderd.',
    email: 'E-mailadres',
    logIn: 'Inloggen',
    invalidCredentials: 'Ongeldige inloggegevens.',
  },
  es: {
    title: 'Cuenta',
    section: 'Eliminar mi cuenta',
    button: 'Eliminar mi cuenta',
    dialog: '¿Eliminar tu cuenta?',
    password: 'Contraseña',
    confirm: 'Eliminar mi cuenta definitivamente',
    deleted: 'Tu cuenta se ha eliminado.',
    email: 'Correo electrónico',
    logIn: 'Iniciar sesión',
    invalidCredentials: 'Datos de acceso no válidos.',
  },
} as const;
type Language = keyof typeof TEXTS;
type Viewport = keyof typeof VIEWPORTS;

describe('deleting the account from the Account screen in a browser', () => {
  const stack = stackForSuite({ env: { gateway: { TRUSTED_PROXIES: '127.0.0.1,::1' } } });

  const { openPage } = chromiumForSuite();

  const logIn = (page: Page, user: { email: string; password: string }) => logInAt(page, stack.base, user);

  async function openAccount(page: Page, language: Language) {
    // The language selector, as a user switches (stored, and saved to the account).
    await page.locator('header').getByRole('combobox').selectOption(language);
    await page.goto(`${stack.base}/account`);
    await heading(page, TEXTS[language].title);
    await page.getByRole('heading', { name: TEXTS[language].section, level: 2 }).waitFor();
  }

  /** Opens the delete dialog; its password field has focus. */
  async function openDeleteDialog(page: Page, language: Language) {
    await page.getByRole('button', { name: TEXTS[language].button, exact: true }).click();
    await page.getByRole('alertdialog', { name: TEXTS[language].dialog }).waitFor();
    expect(await page.evaluate<boolean>(`document.activeElement?.matches('[role=alertdialog] input[type=password]') === true`)).toBe(true);
  }

  /** Serious axe violations and a page wider than the screen, as lines naming the shot. */
  async function checkScreen(page: Page, shot: string, viewport: Viewport): Promise<string[]> {
    const problems = (await seriousViolations(page)).map((violation) => `${shot} (${viewport}): ${violation}`);
    const width = await page.evaluate<number>('document.documentElement.scrollWidth');
    if (width > VIEWPORTS[viewport].width) problems.push(`${shot} (${viewport}): ${width} px wide, wider than the screen`);
    await screenshot(page, `${shot}-${VIEWPORTS[viewport].width}`);
    return problems;
  }

  it('erases an owner with an item in en, nl and es, who can no longer log in, without serious accessibility violations at 360 and 1280 px', async () => {
    const violations: string[] = [];
    for (const language of Object.keys(TEXTS) as Language[]) {
      const texts = TEXTS[language];
      const owner = await ownerWithItem(stack, `Blue backpack (${language})`);

      // The dialog on a phone, then closed again: nothing is deleted.
      const phone = await openPage({ viewport: 'phone' });
      await logIn(phone, owner);
      await openAccount(phone, language);
      await openDeleteDialog(phone, language);
      violations.push(...(await checkScreen(phone, `account-delete-dialog-${language}`, 'phone')));
      await phone.keyboard.press('Escape');
      await phone.getByRole('alertdialog').waitFor({ state: 'detached' });
      await phone.close();

      // On a wide screen: the password, the confirmation, and the home page with the flash.
      const desktop = await openPage({ viewport: 'desktop' });
      await logIn(desktop, owner);
      await openAccount(desktop, language);
      await openDeleteDialog(desktop, language);
      violations.push(...(await checkScreen(desktop, `account-delete-dialog-${language}`, 'desktop')));
      await desktop.getByLabel(texts.password, { exact: true }).fill(owner.password);
      await desktop.getByRole('button', { name: texts.confirm, exact: true }).click();
      await desktop.waitForURL(`${stack.base}/`);
      // The flash shows for 3 seconds: read it and take the shot before it goes.
      await desktop.getByTestId('flash').filter({ hasText: texts.deleted }).waitFor();
      await screenshot(desktop, `account-delete-done-${language}-1280`);
      expect(await desktop.evaluate<string | null>(`localStorage.getItem('homing.token')`)).toBeNull();
      await desktop.locator('header').getByRole('link', { name: texts.logIn, exact: true }).waitFor();

      // Every token of the user is refused, such as the one the set-up got.
      expect((await fetch(`${stack.api}/user/items`, { headers: { authorization: `Bearer ${owner.token}` } })).status).toBe(401);

      // The password no longer logs in.
      await desktop.goto(`${stack.base}/login/${language}`);
      await heading(desktop, texts.logIn);
      await desktop.getByLabel(texts.email, { exact: true }).fill(owner.email);
      await desktop.getByLabel(texts.password, { exact: true }).fill(owner.password);
      await desktop.getByRole('button', { name: texts.logIn, exact: true }).click();
      await desktop.getByRole('alert').filter({ hasText: texts.invalidCredentials }).waitFor();
      expect(desktop.url()).toBe(`${stack.base}/login/${language}`);
    }
    expect(violations).toEqual([]);
  });
});
