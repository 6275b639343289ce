import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { AxeResults, RunOptions } from 'axe-core';
import { chromium, type Browser, type BrowserContext, type CDPSession, type Locator, type Page } from 'playwright-core';

// Debian's Chromium (STACK.md): never a downloaded browser. Most suites drive its headless shell (package
// chromium-headless-shell: the same source and engine without the full browser's windowing and UI layers, what
// Playwright itself runs headless). These tests start a context and a renderer per test, and here the full browser's
// cost about four times the CPU (`--dump-dom about:blank`: 5.5 CPU-s against 1.4): with the shell, two suites took
// 47 s instead of 70. The shell has no Notifications or Push API, so the app offers no push there: suites that meet
// the push offer or receive pushes ask for the full browser, per page or for the whole suite. Without the shell, every
// page runs in the full browser.
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const HEADLESS_SHELL = process.env.CHROMIUM_HEADLESS_SHELL_PATH ?? '/usr/bin/chromium-headless-shell';
export const SCREENSHOTS = join(__dirname, 'test-results', 'screenshots');

const AXE_SOURCE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
// WCAG 2.x A and AA; only violations are reported in detail.
const AXE_OPTIONS: RunOptions = { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] }, resultTypes: ['violations'] };

export const VIEWPORTS = { phone: { width: 360, height: 740 }, desktop: { width: 1280, height: 800 } } as const;

/** Chromium headless: its headless shell where installed, the full browser for pages that need `push`. */
export function launchChromium({ push = false }: { push?: boolean } = {}): Promise<Browser> {
  // Chromium's sandbox cannot start as root (CI containers).
  const asRoot = process.getuid?.() === 0;
  const executablePath = !push && existsSync(HEADLESS_SHELL) ? HEADLESS_SHELL : CHROMIUM;
  return chromium.launch({ executablePath, headless: true, args: asRoot ? ['--no-sandbox'] : [] });
}

/**
 * A fresh browser profile. Each speaks from its own client address (the gateway trusts X-Forwarded-For from
 * loopback in these tests), so the per-address limits on logins and e-mails count each test on its own.
 */
export function newContext(
  browser: Browser,
  options: { viewport?: keyof typeof VIEWPORTS; locale?: string; geolocation?: { latitude: number; longitude: number; accuracy?: number } } = {},
): Promise<BrowserContext> {
  const address = `10.${[...randomBytes(3)].join('.')}`;
  return browser.newContext({
    viewport: VIEWPORTS[options.viewport ?? 'desktop'],
    locale: options.locale ?? 'en-GB',
    extraHTTPHeaders: { 'x-forwarded-for': address },
    // A device at this position whose user allowed the page to know it.
    ...(options.geolocation ? { geolocation: options.geolocation, permissions: ['geolocation'] } : {}),
  });
}

/** What a test's page asks for: its context's settings, and `push` for the full browser (the push offer, pushes). */
export type PageOptions = Parameters<typeof newContext>[1] & { push?: boolean };

/**
 * Chromium for a suite and a page in a fresh context per call; every context closes after each test. Pages run in
 * the headless shell unless they ask for `push` (or the suite does: `chromiumForSuite({ push: true })`); each kind
 * of browser starts once, when a page first needs it. Call it after the suite's own `beforeAll` that starts the
 * stack: the services' start-up has a deadline, and Chromium's start competes for the CPU.
 */
export function chromiumForSuite(suite: { push?: boolean } = {}): {
  openContext(create?: (browser: Browser) => Promise<BrowserContext>, options?: { push?: boolean }): Promise<BrowserContext>;
  openPage(options?: PageOptions): Promise<Page>;
} {
  const browsers = new Map<boolean, Promise<Browser>>();
  const browser = (push: boolean) => {
    let started = browsers.get(push);
    if (!started) {
      started = launchChromium({ push });
      browsers.set(push, started);
    }
    return started;
  };
  const contexts: BrowserContext[] = [];
  beforeAll(async () => {
    await browser(suite.push ?? false);
  });
  afterEach(async () => {
    const closing = contexts.splice(0);
    if ((globalThis as { __webE2eTestFailed?: boolean }).__webE2eTestFailed) await reportFailure(closing);
    await Promise.all(closing.map((context) => context.close()));
  });
  afterAll(async () => {
    await Promise.all([...browsers.values()].map(async (started) => (await started).close()));
  });
  const openContext = async (create: (browser: Browser) => Promise<BrowserContext> = (started) => newContext(started), { push = suite.push ?? false } = {}) => {
    const context = await create(await browser(push));
    keepJournal(context);
    contexts.push(context);
    return context;
  };
  return {
    openContext,
    openPage: async ({ push, ...options } = {}) => (await openContext((started) => newContext(started, options), { push })).newPage(),
  };
}

export const FAILURES = join(__dirname, 'test-results', 'failures');

/** What a context's pages met, for a failed test to print: the newest entries, each with its time since the first. */
const journals = new WeakMap<BrowserContext, string[]>();
const JOURNAL_ENTRIES = 200;
const SLOW_REQUEST_MS = 2000;

/**
 * Keeps what a failure would need explained: each page's navigations, script errors and console errors, and every
 * answer of 400 or more and every request that failed. A test that fails in CI once in many runs is explained by it.
 */
function keepJournal(context: BrowserContext): void {
  const journal: string[] = [];
  journals.set(context, journal);
  const started = Date.now();
  const note = (entry: string) => {
    journal.push(`+${((Date.now() - started) / 1000).toFixed(2)} s ${entry}`);
    if (journal.length > JOURNAL_ENTRIES) journal.shift();
  };
  const path = (url: string) => url.replace(/^https?:\/\/[^/]+/, '');
  context.on('page', (page) => {
    page.on('framenavigated', (frame) => {
      if (frame === page.mainFrame()) note(`navigated to ${path(frame.url())}`);
    });
    page.on('pageerror', (error) => note(`page error: ${error.message}`));
    page.on('console', (message) => {
      if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) note(`console error: ${message.text()}`);
    });
  });
  context.on('response', (response) => {
    if (response.status() >= 400) note(`${response.request().method()} ${path(response.url())} → ${response.status()}`);
  });
  context.on('requestfinished', (request) => {
    // Slow answers: a wait that ran out on a loaded machine shows here.
    const took = request.timing().responseEnd;
    if (took > SLOW_REQUEST_MS) note(`${request.method()} ${path(request.url())} took ${Math.round(took)} ms`);
  });
  context.on('requestfailed', (request) => note(`${request.method()} ${path(request.url())} failed: ${request.failure()?.errorText ?? 'unknown'}`));
}

/** After a failed test: a screenshot of each of its pages (test-results/failures) and what each context met. */
async function reportFailure(contexts: BrowserContext[]): Promise<void> {
  const test = (expect.getState().currentTestName ?? 'test').replace(/[^\w-]+/g, '-').slice(0, 120);
  const lines: string[] = [];
  let shot = 0;
  for (const context of contexts) {
    for (const page of context.pages()) {
      shot += 1;
      const file = join(FAILURES, `${test}-${shot}.png`);
      try {
        mkdirSync(FAILURES, { recursive: true });
        await page.screenshot({ path: file, fullPage: true, timeout: 5000 });
        lines.push(`page ${shot} at ${page.url()} (screenshot ${file})`);
      } catch (error) {
        lines.push(`page ${shot} at ${page.url()} (no screenshot: ${(error as Error).message.split('\n')[0]})`);
      }
    }
    lines.push(...(journals.get(context) ?? []).map((entry) => `  ${entry}`));
  }
  if (lines.length > 0) console.error(`What the browser met before "${expect.getState().currentTestName}" failed:\n${lines.join('\n')}`);
}

/**
 * A page in a fresh context whose browser subscribes to push with `subscription` (a subscription of the stack's push
 * sink, so the product's pushes reach the sink) and may show notifications.
 */
export async function pushReadyPage(
  openContext: ReturnType<typeof chromiumForSuite>['openContext'],
  origin: string,
  subscription: { endpoint: string },
  options: Parameters<typeof newContext>[1] = {},
): Promise<Page> {
  const context = await openContext((browser) => newContext(browser, options), { push: true });
  await context.grantPermissions(['notifications'], { origin });
  await context.addInitScript(`(() => {
    if (typeof PushManager === 'undefined') return;
    const subscription = ${JSON.stringify(subscription)};
    PushManager.prototype.subscribe = async function () {
      return { endpoint: subscription.endpoint, expirationTime: null, options: {}, getKey: () => null, toJSON: () => subscription, unsubscribe: async () => true };
    };
  })()`);
  return context.newPage();
}

/** Accessibility violations axe-core rates serious or critical, as "rule: target" lines (WCAG 2.x A and AA). */
export async function seriousViolations(page: Page): Promise<string[]> {
  // axe-core run in the page itself, injected once per document (minified). @axe-core/playwright took about 1.7 s a
  // call here against 0.5 s: it gathers each frame's partial results and joins them in a new blank page (a page and
  // its renderer started and closed on every check), and injects the unminified source. The app has no frames.
  if (!(await page.evaluate('typeof window.axe === "object"'))) await page.evaluate(AXE_SOURCE);
  const results = (await page.evaluate(`axe.run(document, ${JSON.stringify(AXE_OPTIONS)})`)) as AxeResults;
  return results.violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .flatMap((violation) => violation.nodes.map((node) => `${violation.id}: ${node.target.join(' ')}`));
}

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

/**
 * axe and the page's width at the phone and the desktop size, with a screenshot of each: every serious violation,
 * and a page wider than the screen, added to `violations` named by `name` and the width.
 */
export async function checkAtBothSizes(page: Page, name: string, violations: string[]): Promise<void> {
  const original = page.viewportSize();
  for (const viewport of Object.values(VIEWPORTS)) {
    await page.setViewportSize(viewport);
    violations.push(...(await seriousViolations(page)).map((violation) => `${name} (${viewport.width}): ${violation}`));
    const width = await page.evaluate<number>('document.documentElement.scrollWidth');
    if (width > viewport.width) violations.push(`${name} (${viewport.width}): ${width} px wide, wider than the screen`);
    await screenshot(page, `${name}-${viewport.width}`);
  }
  if (original) await page.setViewportSize(original);
}

/** Picks the interface language in the page header's language list. */
export function chooseLanguage(page: Page, language: string): Promise<string[]> {
  return page.locator('header').getByRole('combobox').selectOption(language);
}

/** Waits for `target` while moving the mouse now and then: the page polls only while its user is active. */
export async function waitWhileActive(page: Page, target: Locator, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (let step = 0; ; step += 1) {
    await page.mouse.move(10 + (step % 50), 10 + (step % 30));
    try {
      await target.waitFor({ timeout: 1000 });
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
    }
  }
}

/** Waits for the page's main heading. */
/**
 * Does `action` and waits for the flash message it brings. The wait starts first: a message shows for 3 seconds from
 * when the action brings it (spec §9), and on a loaded machine the navigation that follows can take that long.
 */
export async function flashAfter(page: Page, text: string, action: () => Promise<unknown>): Promise<void> {
  await Promise.all([page.getByTestId('flash').filter({ hasText: text }).waitFor(), action()]);
}

export async function heading(page: Page, name: string | RegExp): Promise<void> {
  await page.getByRole('heading', { name, level: 1 }).waitFor();
}

/** Logs in with e-mail and password on the gateway at `base`, and waits for My items. */
export async function logIn(page: Page, base: string, user: { email: string; password: string }): Promise<void> {
  await page.goto(`${base}/login`);
  await page.getByLabel('E-mail').fill(user.email);
  await page.getByLabel('Password', { exact: true }).fill(user.password);
  // Exact: the page also has "Log in with a passkey".
  await page.getByRole('button', { name: 'Log in', exact: true }).click();
  await page.waitForURL(`${base}/items`);
  await heading(page, 'My items');
}

/**
 * Waits until the app has taken over a page the server rendered (the gateway's finder page): the server's form posts
 * to the page (`action`), the app's sends with script and has none.
 */
/**
 * The script that takes the gateway's finder page over, for a test to hold back (a slow phone): the finder page's own
 * entry (apps/web/src/finder-main.tsx), or the app's finder route where the whole app loads (an owner, found.html).
 */
export const FINDER_PAGE_CODE = /\/assets\/(?:finder-main|found)-[^/]*\.js$/;

export async function appTookOver(page: Page): Promise<void> {
  await page.locator('#root form.message-form:not([action])').waitFor();
}

/** A virtual authenticator in a page's browser (DevTools protocol), and the session that controls it. */
export interface VirtualAuthenticator {
  cdp: CDPSession;
  authenticatorId: string;
}

/**
 * Gives the page's browser a platform authenticator that holds passkeys (resident keys), verifies its user and agrees
 * to every ceremony by itself: WebAuthn without a dialog. Pages must be on a host name (not an IP address) for it.
 */
export async function addVirtualAuthenticator(page: Page): Promise<VirtualAuthenticator> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('WebAuthn.enable', { enableUI: false });
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
  });
  return { cdp, authenticatorId };
}

/**
 * Records every layout shift of the page's next documents from their first paint (buffered), with what moved; read
 * them with `layoutShifts`.
 */
export async function watchLayoutShifts(page: Page): Promise<void> {
  await page.addInitScript(`window.layoutShifts = [];
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) {
        const moved = entry.sources.map((source) => {
          const node = source.node ? (source.node.outerHTML || source.node.textContent || '').slice(0, 80) : '?';
          const box = (rect) => rect.x + ',' + rect.y + ' ' + Math.round(rect.width) + 'x' + Math.round(rect.height);
          return node + ' from ' + box(source.previousRect) + ' to ' + box(source.currentRect);
        });
        window.layoutShifts.push(Math.round(entry.startTime) + ' ms, ' + entry.value.toFixed(4) + ': ' + moved.join('; '));
      }
    }).observe({ type: 'layout-shift', buffered: true });`);
}

/** The layout shifts `watchLayoutShifts` saw so far, a line each (when, how much, what moved from where to where). */
export function layoutShifts(page: Page): Promise<string[]> {
  return page.evaluate('window.layoutShifts') as Promise<string[]>;
}
