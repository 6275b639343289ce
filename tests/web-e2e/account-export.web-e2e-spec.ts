import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { Page } from 'playwright-core';
import type { PublicItem, UserExport } from '@homing/contracts';
import { stackForSuite } from '../support/stack';
import { chromiumForSuite, heading, logIn as logInAt, screenshot, seriousViolations, VIEWPORTS } from './browser';

// The Account screen's data export in Chromium against the whole product: the owner downloads a JSON file of what
// is kept about them, in each language; a failed download says so.

/** What the screen says in each language, as the locales of apps/web word it. */
const TEXTS = {
  en: { title: 'Account', section: 'Your data', button: 'Download my data', failed: 'Your data could not be downloaded. Please try again in a moment.' },
  nl: { title: 'Account', section: 'Je gegevens', button: 'Mijn gegevens downloaden', failed: 'Je gegevens konden niet worden gedownload. Probeer het zo opnieuw.' },
  es: { title: 'Cuenta', section: 'Tus datos', button: 'Descargar mis datos', failed: 'No se han podido descargar tus datos. Inténtalo de nuevo en un momento.' },
} as const;
type Language = keyof typeof TEXTS;

describe('the Account screen’s data export in a browser', () => {
  const stack = stackForSuite({ env: { gateway: { TRUSTED_PROXIES: '127.0.0.1,::1' } } });

  const { openPage } = chromiumForSuite();

  /** An owner with a password and one item with this name. */
  async function newOwner(itemName: string) {
    const email = `owner-${randomUUID()}@example.test`;
    const password = `pw-${randomUUID()}`;
    const reply = await stack.nc.request(`${stack.namespace}.identity.rpc.ensure-user`, JSON.stringify({ email, language: 'en' }), { timeout: 5000 });
    const { passwordToken } = reply.json<{ passwordToken: string }>();
    const set = await fetch(`${stack.api}/user/password`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-forwarded-for': '10.203.0.1' }, body: JSON.stringify({ token: passwordToken, password }) });
    expect(set.status).toBe(200);
    const { token } = (await set.json()) as { token: string };
    const created = await fetch(`${stack.api}/items`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify({ name: itemName }) });
    expect(created.status).toBe(201);
    const item = (await created.json()) as PublicItem;
    return { email, password, code: item.code };
  }

  const logIn = (page: Page, user: { email: string; password: string }) => logInAt(page, stack.base, user);

  async function openAccount(page: Page, language: Language) {
    // The language selector, as a user switches (stored, and saved to the account).
    await page.locator('header').getByRole('combobox').selectOption(language);
    await page.goto(`${stack.base}/account`);
    await heading(page, TEXTS[language].title);
    await page.getByRole('heading', { name: TEXTS[language].section, level: 2 }).waitFor();
  }

  /** Clicks the button and reads the saved file. */
  async function download(page: Page, language: Language): Promise<{ name: string; file: UserExport }> {
    const [saved] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: TEXTS[language].button }).click()]);
    return { name: saved.suggestedFilename(), file: JSON.parse((await readFile((await saved.path()) as string)).toString()) as UserExport };
  }

  it('downloads a JSON file naming the owner’s item in en, nl and es, without serious accessibility violations at 360 and 1280 px', async () => {
    const itemName = `Blue backpack ${randomUUID().slice(0, 8)}`;
    const owner = await newOwner(itemName);
    const violations: string[] = [];
    for (const viewport of Object.keys(VIEWPORTS) as Array<keyof typeof VIEWPORTS>) {
      const page = await openPage({ viewport });
      await logIn(page, owner);
      for (const language of Object.keys(TEXTS) as Language[]) {
        await openAccount(page, language);
        const { name, file } = await download(page, language);
        expect(name).toBe(`homing-export-${new Date().toISOString().slice(0, 10)}.json`);
        expect(file.account.email).toBe(owner.email);
        expect(file.items.map((item) => [item.code, item.name])).toEqual([[owner.code, itemName]]);

        const shot = `account-export-${language}`;
        violations.push(...(await seriousViolations(page)).map((violation) => `${shot} (${viewport}): ${violation}`));
        const width = await page.evaluate<number>('document.documentElement.scrollWidth');
        if (width > VIEWPORTS[viewport].width) violations.push(`${shot} (${viewport}): ${width} px wide, wider than the screen`);
        await screenshot(page, `${shot}-${VIEWPORTS[viewport].width}`);
      }
    }
    expect(violations).toEqual([]);
  });

  it('says so when the download fails, and saves nothing', async () => {
    const owner = await newOwner('Keys');
    const page = await openPage({ viewport: 'phone' });
    await logIn(page, owner);
    await openAccount(page, 'en');
    // A service that does not answer: the gateway's 503, as the contract words it.
    await page.route('**/api/v1/user/export', (route) =>
      route.fulfill({ status: 503, contentType: 'application/json', headers: { 'retry-after': '5' }, body: JSON.stringify({ response_code: 'SERVICE_UNAVAILABLE', message: 'A service is temporarily unavailable. Try again shortly.' }) }),
    );
    let downloads = 0;
    page.on('download', () => (downloads += 1));
    await page.getByRole('button', { name: TEXTS.en.button }).click();
    await page.getByRole('alert').filter({ hasText: TEXTS.en.failed }).waitFor();
    expect(downloads).toBe(0);
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'account-export-failed-360');
  });
});

