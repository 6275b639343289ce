import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { Page } from 'playwright-core';
import { runServiceCommand } from '@homing/testing';
import { stackForSuite } from '../support/stack';
import { chromiumForSuite, heading, logIn as logInAt, screenshot, seriousViolations, VIEWPORTS } from './browser';

// The admins' screen for the tag supply (/admin/tag-batches) in Chromium against the whole product: an admin mints a
// batch, sees it listed and downloads its files, in each language; anyone else never meets the screen.

/** What the screen says in each language, as the locales of apps/web word it. */
const TEXTS = {
  en: { title: 'Tag batches', label: 'Label', count: 'Number of tags', submit: 'Mint batch', noneActivated: '0 of 10 activated', minted: (label: string) => `Batch “${label}” minted: 10 new tags.` },
  nl: { title: 'Labelreeksen', label: 'Omschrijving', count: 'Aantal labels', submit: 'Reeks aanmaken', noneActivated: '0 van 10 geactiveerd', minted: (label: string) => `Reeks “${label}” aangemaakt: 10 nieuwe labels.` },
  es: { title: 'Lotes de etiquetas', label: 'Descripción', count: 'Número de etiquetas', submit: 'Crear lote', noneActivated: '0 de 10 activadas', minted: (label: string) => `Lote «${label}» creado: 10 etiquetas nuevas.` },
} as const;
type Language = keyof typeof TEXTS;

describe('the tag batches screen in a browser', () => {
  const stack = stackForSuite({ env: { gateway: { TRUSTED_PROXIES: '127.0.0.1,::1' } } });

  const { openPage } = chromiumForSuite();

  const url = (path: string) => `${stack.base}${path}`;

  /** A user with a password, as activating a tag creates one. */
  async function newUser(password = `pw-${randomUUID()}`) {
    const email = `user-${randomUUID()}@example.test`;
    const reply = await stack.nc.request(`${stack.namespace}.identity.rpc.ensure-user`, JSON.stringify({ email, language: 'en' }), { timeout: 5000 });
    const { passwordToken } = reply.json<{ passwordToken: string }>();
    const set = await fetch(`${stack.api}/user/password`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-forwarded-for': '10.202.0.1' }, body: JSON.stringify({ token: passwordToken, password }) });
    expect(set.status).toBe(200);
    return { email, password };
  }

  /** An admin, made by identity's `grant-admin` command before logging in, so the access token carries `is_admin`. */
  async function newAdmin() {
    const user = await newUser();
    await runServiceCommand('identity', ['grant-admin', '--email', user.email], stack.envOf('identity'));
    return user;
  }

  const logIn = (page: Page, user: { email: string; password: string }) => logInAt(page, stack.base, user);

  /** The card of a batch in the list, by its label. */
  const batchCard = (page: Page, label: string) => page.getByRole('listitem').filter({ has: page.getByRole('heading', { name: label, level: 3 }) });

  async function mint(page: Page, label: string, language: Language = 'en') {
    const texts = TEXTS[language];
    await page.getByLabel(texts.label).fill(label);
    await page.getByLabel(texts.count).fill('10');
    await page.getByRole('button', { name: texts.submit }).click();
    await page.getByText(texts.minted(label)).waitFor();
    // The list refreshes after minting: the new batch, none of its tags activated yet.
    await batchCard(page, label).getByText(texts.noneActivated).waitFor();
  }

  it('lets an admin mint a batch of 10 from the menu, lists it with none activated, and downloads its files', async () => {
    const page = await openPage();
    await logIn(page, await newAdmin());
    await page.getByRole('navigation', { name: 'Main menu' }).getByRole('link', { name: 'Tag batches' }).click();
    await page.waitForURL(url('/admin/tag-batches'));
    await heading(page, 'Tag batches');

    // The form checks its fields before anything is minted.
    await page.getByRole('button', { name: 'Mint batch' }).click();
    await page.getByText('This field is required.').first().waitFor();
    expect(await page.getByLabel('Label').getAttribute('aria-invalid')).toBe('true');

    const label = `Stickers ${randomUUID().slice(0, 8)}`;
    await mint(page, label);
    const card = batchCard(page, label);
    expect(await card.count()).toBe(1);
    // The newest batch comes first.
    expect(await page.getByRole('heading', { level: 3 }).first().textContent()).toBe(label);

    // Each file comes through the API client with the token, and is saved under the server's name.
    const files: Array<[string, string, (content: Buffer) => void]> = [
      [`PDF sheet: ${label}`, '.pdf', (content) => expect(content.subarray(0, 5).toString()).toBe('%PDF-')],
      [`CSV of codes: ${label}`, '.csv', (content) => expect(content.toString()).toMatch(/[0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z]{4}/)],
      [`SVG page: ${label}`, '.svg', (content) => expect(content.toString()).toContain('<svg')],
    ];
    for (const [button, extension, check] of files) {
      const [download] = await Promise.all([page.waitForEvent('download'), card.getByRole('button', { name: button }).click()]);
      expect(download.suggestedFilename()).toMatch(new RegExp(`\\${extension}$`));
      check(await readFile((await download.path()) as string));
    }
  });

  it('speaks Dutch and Spanish, has no serious accessibility violation and fits a 360 px phone, with screenshots at 360 and 1280 px', async () => {
    const admin = await newAdmin();
    const violations: string[] = [];
    for (const viewport of Object.keys(VIEWPORTS) as Array<keyof typeof VIEWPORTS>) {
      const page = await openPage({ viewport });
      await logIn(page, admin);
      for (const language of Object.keys(TEXTS) as Language[]) {
        const texts = TEXTS[language];
        // The language selector, as a user switches (stored, and saved to the account).
        await page.locator('header').getByRole('combobox').selectOption(language);
        await page.goto(url('/admin/tag-batches'));
        await heading(page, texts.title);
        await mint(page, `${language.toUpperCase()} ${viewport} ${randomUUID().slice(0, 8)}`, language);

        const name = `admin-tag-batches-${language}`;
        violations.push(...(await seriousViolations(page)).map((violation) => `${name} (${viewport}): ${violation}`));
        const width = await page.evaluate<number>('document.documentElement.scrollWidth');
        if (width > VIEWPORTS[viewport].width) violations.push(`${name} (${viewport}): ${width} px wide, wider than the screen`);
        await screenshot(page, `${name}-${VIEWPORTS[viewport].width}`);
      }
    }
    expect(violations).toEqual([]);
  });

  it('never shows a non-admin the link or the screen', async () => {
    const page = await openPage({ viewport: 'phone' });
    await logIn(page, await newUser());
    const menu = page.getByRole('navigation', { name: 'Main menu' });
    await menu.getByRole('link', { name: 'Account' }).waitFor();
    expect(await menu.getByRole('link', { name: 'Tag batches' }).count()).toBe(0);

    await page.goto(url('/admin/tag-batches'));
    await heading(page, 'Page not found');
    expect(await page.getByRole('button', { name: 'Mint batch' }).count()).toBe(0);
    expect(await page.getByText('Tag batches').count()).toBe(0);
    await screenshot(page, 'admin-tag-batches-not-admin-360');
  });
});
