import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import AxeBuilder from '@axe-core/playwright';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

// Debian's Chromium (STACK.md): never a downloaded browser.
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const SCREENSHOTS = join(__dirname, 'test-results', 'screenshots');

export const VIEWPORTS = { phone: { width: 360, height: 740 }, desktop: { width: 1280, height: 800 } } as const;

export function launchChromium(): Promise<Browser> {
  // Chromium's sandbox cannot start as root (CI containers).
  const asRoot = process.getuid?.() === 0;
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: asRoot ? ['--no-sandbox'] : [] });
}

/**
 * A fresh browser profile. Each speaks from its own client address (the gateway trusts X-Forwarded-For from
 * loopback in these tests), so the per-address limits on logins and e-mails count each test on its own.
 */
export function newContext(browser: Browser, options: { viewport?: keyof typeof VIEWPORTS; locale?: string } = {}): Promise<BrowserContext> {
  const address = `10.${[...randomBytes(3)].join('.')}`;
  return browser.newContext({
    viewport: VIEWPORTS[options.viewport ?? 'desktop'],
    locale: options.locale ?? 'en-GB',
    extraHTTPHeaders: { 'x-forwarded-for': address },
  });
}

/** Accessibility violations axe-core rates serious or critical, as "rule: target" lines (WCAG 2.x A and AA). */
export async function seriousViolations(page: Page): Promise<string[]> {
  const results = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
  return results.violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .flatMap((violation) => violation.nodes.map((node) => `${violation.id}: ${node.target.join(' ')}`));
}

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
}
