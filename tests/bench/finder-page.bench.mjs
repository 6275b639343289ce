#!/usr/bin/env node
// B7: the finder page, /found/{code}, on a phone profile: Debian's Chromium via playwright-core, 150 ms RTT,
// 1.6 Mbps down / 750 kbps up, 4× CPU slowdown, a 360×640 mobile viewport at device scale 2, a fresh context (no
// cache, service workers blocked) for every load.
// - Product: the built web app served by the real gateway (WEB_DIST=dist/apps/web, which renders /found/{code} with
//   the item and a form that posts without script), with items, a private nats-server and a seeded, named tag behind it.
// - Baseline: a minimal React + react-router build of the same page (finder-baseline/, built here with Vite into a
//   temp dir), served as static files, its /api/ and /lang proxied to the same gateway.
// Both are reached through the same small front server that gzips text answers on the fly, as nginx does in
// production (deploy/nginx/web.conf: `gzip on`); the gateway itself sends its files uncompressed.
// Figures per load: JS bytes transferred before the page is usable, LCP, CLS and TBT (defined in `definitions`
// below, and in the section written to docs/benchmarks.md). Alternating loads: baseline, product, baseline, product.
// Usage: npm run bench -- b7 [--rounds 3] [--smoke]
import { request as httpRequest, createServer as createHttpServer, Agent } from 'node:http';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { extname, join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import react from '@vitejs/plugin-react';
import { chromium } from 'playwright-core';
import { build } from 'vite';
import { benchKeys } from './bench-env.mjs';
import { ensureDatabase, figureOf, formatRatio, freePort, machineLine, median, option, root, runItems, seedItems, smoke, startPinned, startServicePinned, stopAll, summaryRow, waitReady, writeSection } from './harness.mjs';

const rounds = Number(option('rounds', smoke ? '1' : '3'));
const GOALS = { jsRatio: 1.1, lcpMs: 1500, cls: 0.0001, tbtMs: 50 };
const PROFILE = { latencyMs: 150, downloadBytesPerSecond: 200_000, uploadBytesPerSecond: 93_750, cpuSlowdown: 4, viewport: { width: 360, height: 640 }, deviceScaleFactor: 2 };
// After the page is usable: how long long tasks still count towards TBT, and LCP and layout shifts are still watched.
const QUIET_MS = 1000;
// The app's takeover is over once no script has been asked for or arrived for this long.
const TAKEOVER_QUIET_MS = 2000;
// zlib's default, what "gzip size" usually means (Vite's report, `gzip -6`); nginx's default gzip_comp_level is 1.
const GZIP_LEVEL = 6;
const GZIPPED = /^(text\/|application\/(javascript|json|manifest\+json)|image\/svg\+xml)/;
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
// tests/web-e2e's flags, and the ones a benchmark wants quiet: no background traffic in the measured loads.
const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const WEB_DIST = resolve(root, 'dist/apps/web');

const namespace = `bench_${randomBytes(3).toString('hex')}`;
const schema = `items_${namespace}`;
const databaseUrl = process.env.DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/homing_test';
const work = mkdtempSync(join(tmpdir(), 'homing-b7-'));

const definitions = [
  `**Usable**: the page's message form (\`form.message-form\`) has its textarea and its submit button both present and enabled. The product's page is rendered by the gateway with the item and a form that posts without script (issue 24), so it is usable as soon as it has arrived: no script is needed before it (the app's code, once it runs, keeps the button disabled until it has taken the page over, and the page carries the item the app starts from). Before that page, found.html shipped the form with the button disabled and only the app's FinderView, after \`GET /api/v1/items/{code}\` answered, enabled it. The baseline renders the form, enabled, once the same call answered. Recorded in the page by a MutationObserver (performance.now() of the first mutation after which the condition holds).`,
  `**JS before usable**: the gzip bodies (Content-Length as sent) of every CDP request of type Script whose resource-timing entry had finished (responseEnd) by the usable time; beside it, CDP \`Network.loadingFinished\` encodedDataLength, the bytes on the wire with response headers (the gateway's security headers cost about 0.8 KB per file).`,
  `**LCP**: the last \`largest-contentful-paint\` entry (buffered PerformanceObserver) by usable + ${QUIET_MS} ms, from navigation start.`,
  `**CLS**: the sum of \`layout-shift\` entries without recent input up to usable + ${QUIET_MS} ms (the page takes no input here); passes only when every load's sum is below ${GOALS.cls}.`,
  `**TBT**: over \`longtask\` entries, the sum of (duration − 50 ms) of each task's part between FCP and usable + ${QUIET_MS} ms (CPU slowed 4×, so tasks are 4× longer than on this machine).`,
];

// In every page before its own scripts: the observers and the usable signal.
/* global window, document, PerformanceObserver, MutationObserver -- run in the browser */
function instrumentPage() {
  const b7 = { lcp: 0, cls: 0, shifts: 0, fcp: undefined, usableAt: undefined, longTasks: [] };
  window.__b7 = b7;
  const observe = (type, onEntry) => {
    try {
      new PerformanceObserver((list) => list.getEntries().forEach(onEntry)).observe({ type, buffered: true });
    } catch {
      // An entry type this browser lacks.
    }
  };
  observe('largest-contentful-paint', (entry) => (b7.lcp = entry.renderTime || entry.loadTime || entry.startTime));
  observe('layout-shift', (entry) => {
    if (entry.hadRecentInput) return;
    b7.cls += entry.value;
    b7.shifts += 1;
  });
  observe('paint', (entry) => {
    if (entry.name === 'first-contentful-paint') b7.fcp = entry.startTime;
  });
  observe('longtask', (entry) => b7.longTasks.push([entry.startTime, entry.duration]));

  const usable = () => {
    const form = document.querySelector('form.message-form');
    const textarea = form?.querySelector('textarea');
    const button = form?.querySelector('button[type="submit"]');
    return Boolean(textarea && !textarea.disabled && button && !button.disabled);
  };
  const itemWatcher = new MutationObserver(() => {
    // Whether the page arrived with its item rendered in (the gateway's page), seen while it parses, before the app
    // replaces it.
    if (!document.querySelector('script#homing-found-item')) return;
    b7.itemRendered = true;
    itemWatcher.disconnect();
  });
  itemWatcher.observe(document, { subtree: true, childList: true });
  const watcher = new MutationObserver(() => {
    if (b7.usableAt !== undefined || !usable()) return;
    b7.usableAt = performance.now();
    b7.scriptsDone = performance
      .getEntriesByType('resource')
      .filter((entry) => entry.responseEnd <= b7.usableAt)
      .map((entry) => entry.name);
    watcher.disconnect();
  });
  watcher.observe(document, { subtree: true, childList: true, attributes: true });
}

/** The front server: `serve(request)` answers from files, or null to proxy to the gateway; text answers gzipped. */
function startFront(port, gatewayPort, serveFile) {
  const agent = new Agent({ keepAlive: true });
  const send = (req, res, status, headers, body) => {
    const type = String(headers['content-type'] ?? '');
    const out = { ...headers };
    delete out['content-length'];
    delete out['transfer-encoding'];
    delete out.connection;
    delete out['keep-alive'];
    if (GZIPPED.test(type) && body.length > 0 && /\bgzip\b/.test(req.headers['accept-encoding'] ?? '') && !out['content-encoding']) {
      body = gzipSync(body, { level: GZIP_LEVEL });
      out['content-encoding'] = 'gzip';
      out.vary = 'Accept-Encoding';
    }
    out['content-length'] = String(body.length);
    res.writeHead(status, out);
    res.end(req.method === 'HEAD' ? undefined : body);
  };
  const server = createHttpServer((req, res) => {
    const file = serveFile?.(req);
    if (file) return send(req, res, 200, file.headers, file.body);
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      const headers = { ...req.headers, host: `127.0.0.1:${gatewayPort}` };
      // The front asks the gateway for plain bytes, and compresses them itself.
      delete headers['accept-encoding'];
      const upstream = httpRequest({ host: '127.0.0.1', port: gatewayPort, method: req.method, path: req.url, headers, agent }, (answer) => {
        const body = [];
        answer.on('data', (chunk) => body.push(chunk));
        answer.on('end', () => send(req, res, answer.statusCode, answer.headers, Buffer.concat(body)));
      });
      upstream.on('error', () => send(req, res, 502, { 'content-type': 'text/plain' }, Buffer.from('bad gateway')));
      upstream.end(Buffer.concat(chunks));
    });
  });
  return new Promise((done) => server.listen(port, '127.0.0.1', () => done(server)));
}

const TYPES = { '.html': 'text/html; charset=utf-8', '.js': 'application/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8', '.svg': 'image/svg+xml' };

/** The baseline's static files: /assets/* as built, every other page path its index.html; /api/ and /lang proxied. */
function baselineFiles(dir) {
  return (req) => {
    const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    if (/^\/(api\/|lang(\/|$))/.test(path)) return null;
    const file = resolve(dir, `.${path}`);
    if (file.startsWith(dir) && path !== '/' && existsSync(file) && extname(file)) {
      const immutable = path.startsWith('/assets/') ? { 'cache-control': 'public, max-age=31536000, immutable' } : {};
      return { headers: { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream', ...immutable }, body: readFileSync(file) };
    }
    return { headers: { 'content-type': TYPES['.html'], 'cache-control': 'no-cache' }, body: readFileSync(join(dir, 'index.html')) };
  };
}

/** One load in a fresh context on the phone profile: its figures. */
async function load(browser, url) {
  const context = await browser.newContext({
    viewport: PROFILE.viewport,
    deviceScaleFactor: PROFILE.deviceScaleFactor,
    isMobile: true,
    hasTouch: true,
    locale: 'en-GB',
    serviceWorkers: 'block',
    // Each load from its own client address (the gateway trusts X-Forwarded-For from loopback), as strangers are.
    extraHTTPHeaders: { 'x-forwarded-for': `10.${[...randomBytes(3)].join('.')}` },
  });
  try {
    const page = await context.newPage();
    await page.addInitScript(instrumentPage);
    const cdp = await context.newCDPSession(page);
    const requests = new Map();
    // When a script was last asked for or finished arriving: the app's takeover is over once that has been quiet a while.
    let lastScriptEvent = Date.now();
    const noteScript = (entry) => entry?.type === 'Script' && (lastScriptEvent = Date.now());
    cdp.on('Network.requestWillBeSent', ({ requestId, request, type }) => {
      requests.set(requestId, { url: request.url, type });
      noteScript({ type });
    });
    // The body as sent (the front's Content-Length: gzip bytes), beside what CDP counts on the wire (with headers).
    const bodyLength = (headers) => Number(Object.entries(headers).find(([name]) => name.toLowerCase() === 'content-length')?.[1]);
    cdp.on('Network.responseReceived', ({ requestId, type, response }) => Object.assign(requests.get(requestId) ?? {}, { type, status: response.status, body: bodyLength(response.headers) }));
    cdp.on('Network.loadingFinished', ({ requestId, encodedDataLength }) => noteScript(Object.assign(requests.get(requestId) ?? {}, { bytes: encodedDataLength })));
    await cdp.send('Network.enable');
    await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
    await cdp.send('Network.emulateNetworkConditions', {
      offline: false,
      latency: PROFILE.latencyMs,
      downloadThroughput: PROFILE.downloadBytesPerSecond,
      uploadThroughput: PROFILE.uploadBytesPerSecond,
    });
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: PROFILE.cpuSlowdown });
    await page.goto(url, { waitUntil: 'commit', timeout: 60_000 });
    await page.waitForFunction(() => window.__b7.usableAt !== undefined, undefined, { timeout: 60_000, polling: 100 });
    await page.waitForTimeout(QUIET_MS);
    const figures = await page.evaluate(() => window.__b7);
    // Then the rest of the app's code, which takes the page over after it is usable (not a goal: what a phone still
    // downloads and runs): every script asked for has arrived and none was asked for in TAKEOVER_QUIET_MS.
    const scriptsSettled = () => [...requests.values()].every((entry) => entry.type !== 'Script' || entry.bytes !== undefined) && Date.now() - lastScriptEvent >= TAKEOVER_QUIET_MS;
    for (const started = Date.now(); !scriptsSettled(); await page.waitForTimeout(100)) {
      if (Date.now() - started > 60_000) throw new Error(`${url}: scripts still loading 60 s after the page was usable`);
    }
    const takeover = await page.evaluate(() => ({
      longTaskMs: window.__b7.longTasks.reduce((sum, [, duration]) => sum + duration, 0),
      scriptsEndMs: Math.max(0, ...performance.getEntriesByType('resource').filter((entry) => entry.initiatorType === 'script' || entry.name.endsWith('.js')).map((entry) => entry.responseEnd)),
    }));
    const all = [...requests.values()];
    // The page showed the item: fetched by the app (the baseline, found.html), or rendered into the page by the gateway
    // (the product's page carries it for the app to start from, and the app asks again only in the background).
    const item = all.find((entry) => /\/api\/v1\/items\/[^/]+$/.test(new URL(entry.url).pathname));
    const rendered = figures.itemRendered === true;
    if (item?.status !== 200 && !rendered) throw new Error(`${url}: GET /api/v1/items/{code} answered ${item?.status ?? 'never'}, and the page carries no item`);
    const done = new Set(figures.scriptsDone);
    const asScript = ({ url: scriptUrl, bytes, body }) => ({ path: new URL(scriptUrl).pathname, bytes: body, wire: bytes });
    const scripts = all.filter((entry) => entry.type === 'Script' && entry.bytes !== undefined && done.has(entry.url)).map(asScript);
    const allScripts = all.filter((entry) => entry.type === 'Script' && entry.bytes !== undefined).map(asScript);
    const fcp = figures.fcp ?? 0;
    const windowEnd = figures.usableAt + QUIET_MS;
    const tbt = figures.longTasks.reduce((sum, [start, duration]) => {
      const length = Math.min(start + duration, windowEnd) - Math.max(start, fcp);
      return sum + Math.max(0, length - 50);
    }, 0);
    return {
      jsBytes: scripts.reduce((sum, { bytes }) => sum + bytes, 0),
      jsWire: scripts.reduce((sum, { wire }) => sum + wire, 0),
      scripts,
      allScripts,
      allJsBytes: allScripts.reduce((sum, { bytes }) => sum + bytes, 0),
      allScriptsEndMs: takeover.scriptsEndMs,
      allLongTaskMs: takeover.longTaskMs,
      usableMs: figures.usableAt,
      fcpMs: figures.fcp,
      lcpMs: figures.lcp,
      cls: figures.cls,
      tbtMs: tbt,
      longTasks: figures.longTasks.length,
      longTaskList: figures.longTasks.map(([start, duration]) => `${duration.toFixed(0)} ms at ${start.toFixed(0)} ms`).join(', ') || 'none',
      calls: all.filter((entry) => /^\/(api\/|lang)/.test(new URL(entry.url).pathname)).map((entry) => new URL(entry.url).pathname),
    };
  } finally {
    await context.close();
  }
}

/** A Vite plugin noting the modules of each chunk it writes, by URL path (`/assets/…`), into `chunks`. */
const chunkContentsInto = (chunks) => ({
  name: 'b7:chunk-contents',
  generateBundle(_, bundle) {
    for (const chunk of Object.values(bundle)) if (chunk.type === 'chunk') chunks[`/${chunk.fileName}`] = chunk.modules;
  },
});

/** The web build's chunks and the modules in each (a second Vite build of apps/web into a temp dir, 2-3 s). */
async function analyseWebChunks(chunks) {
  try {
    await build({
      configFile: resolve(root, 'apps/web/vite.config.mts'),
      logLevel: 'silent',
      build: { outDir: join(work, 'web-analysis'), emptyOutDir: true },
      plugins: [chunkContentsInto(chunks)],
    });
  } catch (error) {
    console.log(`(the analysis build of apps/web failed, chunk contents left out: ${error.message.split('\n')[0]})`);
  }
}

/** What a chunk holds, by package (or app folder), as shares of its rendered (pre-minification) size. */
function contentsOf(modules) {
  if (!modules) return 'not analysed (the sources changed since dist/apps/web was built)';
  const groups = {};
  let total = 0;
  for (const [id, { renderedLength }] of Object.entries(modules)) {
    const clean = id.replace(/^\0/, '').replace(/\?.*$/, '');
    const inPackage = clean.lastIndexOf('/node_modules/');
    let group;
    if (inPackage >= 0) {
      const parts = clean.slice(inPackage + 14).split('/');
      group = parts[0].startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0];
    } else if (clean.startsWith(root)) {
      const parts = clean.slice(root.length + 1).split('/');
      group = parts[0] === 'libs' ? `libs/${parts[1]}` : parts.slice(0, Math.min(parts.length, 5)).join('/');
    } else group = clean.includes('rolldown') ? 'bundler runtime' : clean.split('/').pop();
    groups[group] = (groups[group] ?? 0) + renderedLength;
    total += renderedLength;
  }
  const sorted = Object.entries(groups).sort((a, b) => b[1] - a[1]);
  const shown = sorted.filter(([, length]) => length / total >= 0.03).slice(0, 6);
  const rest = sorted.length - shown.length;
  return shown.map(([group, length]) => `${group} ${((100 * length) / total).toFixed(0)} %`).join(', ') + (rest ? `, ${rest} more` : '');
}

const kb = (bytes) => `${(bytes / 1000).toFixed(1)} KB`;
const spread = (values, format) => `${format(median(values))} (${format(Math.min(...values))}–${format(Math.max(...values))})`;
const ms = (value) => `${value.toFixed(0)} ms`;

let db;
let browser;
const fronts = [];
try {
  for (const file of ['dist/apps/web/found.html', 'dist/apps/gateway/main.js', 'dist/apps/items/main.js']) {
    if (!existsSync(resolve(root, file))) throw new Error(`${file} is missing: run npm run build first`);
  }
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install chromium (or set CHROMIUM_PATH)`);

  // The baseline, built as a minimal app would be (Vite's production defaults, the React plugin).
  const baselineDir = join(work, 'baseline');
  const chunkContents = {};
  await build({ root: resolve(import.meta.dirname, 'finder-baseline'), configFile: false, logLevel: 'silent', plugins: [react(), chunkContentsInto(chunkContents)], build: { outDir: baselineDir, emptyOutDir: true } });
  await analyseWebChunks(chunkContents);

  const natsPort = await freePort();
  startPinned('nats-server', ['-js', '-a', '127.0.0.1', '-p', String(natsPort), '-sd', join(work, 'jetstream')], {}, 'ignore');
  const productEnv = { DATABASE_URL: databaseUrl, DATABASE_SCHEMA: schema, NATS_URL: `nats://127.0.0.1:${natsPort}`, NATS_NAMESPACE: namespace, NODE_ENV: 'production', ...benchKeys() };
  db = await ensureDatabase(databaseUrl);
  runItems(['migrate'], productEnv);
  // Every second seeded tag is claimed and named: the page shows a real item to a finder.
  const codes = await seedItems(db, schema, 10);
  const { rows: named } = await db.query(`SELECT code, name FROM "${schema}".items WHERE name IS NOT NULL AND code = ANY($1::char(16)[]) LIMIT 1`, [codes]);
  const code = named[0].code.trim();

  const [itemsPort, gatewayPort, productPort, baselinePort] = [await freePort(), await freePort(), await freePort(), await freePort()];
  startServicePinned('items', { ...productEnv, PORT: String(itemsPort) });
  startServicePinned('gateway', { ...productEnv, PORT: String(gatewayPort), WEB_DIST, TRUSTED_PROXIES: '127.0.0.1', PUBLIC_URL: `http://127.0.0.1:${productPort}` });
  await Promise.all([itemsPort, gatewayPort].map((port) => waitReady(`http://127.0.0.1:${port}/health/ready`)));
  fronts.push(await startFront(productPort, gatewayPort), await startFront(baselinePort, gatewayPort, baselineFiles(baselineDir)));
  const scan = await (await fetch(`http://127.0.0.1:${gatewayPort}/api/v1/items/${code}`)).json();
  if (!scan.activated) throw new Error(`the seeded tag ${code} is not activated: ${JSON.stringify(scan)}`);

  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
  const urls = { baseline: `http://127.0.0.1:${baselinePort}/found/${code}`, product: `http://127.0.0.1:${productPort}/found/${code}` };
  console.log(`B7: /found/{code} on ${browser.version()}, ${PROFILE.latencyMs} ms RTT, ${(PROFILE.downloadBytesPerSecond * 8) / 1e6} Mbps down, ${PROFILE.cpuSlowdown}× CPU slowdown, ${rounds} alternating rounds\n`);
  // One load of each first, not counted: the gateway's and items' code paths warmed (JIT, connection pools).
  if (!smoke) for (const which of ['baseline', 'product']) await load(browser, urls[which]);

  console.log('round   which      JS before usable   usable    FCP      LCP      CLS       TBT (long tasks)   the whole load');
  const rows = [];
  for (let round = 1; round <= rounds; round += 1) {
    const row = { round };
    for (const which of ['baseline', 'product']) {
      const figures = await load(browser, urls[which]);
      row[which] = figures;
      console.log(
        `${String(round).padStart(5)}   ${which.padEnd(9)}  ${kb(figures.jsBytes).padStart(16)}   ${ms(figures.usableMs).padStart(7)}  ${ms(figures.fcpMs ?? 0).padStart(7)}  ${ms(figures.lcpMs).padStart(7)}  ${figures.cls.toFixed(4).padStart(7)}  ${ms(figures.tbtMs).padStart(7)} (${figures.longTasks})   all JS ${kb(figures.allJsBytes)} by ${ms(figures.allScriptsEndMs)}, long tasks ${ms(figures.allLongTaskMs)}`,
      );
    }
    row.ratio = row.product.jsBytes / row.baseline.jsBytes;
    rows.push(row);
  }
  const of = (which, key) => rows.map((row) => row[which][key]);
  const ratios = rows.map((row) => row.ratio);
  const figures = {
    jsRatio: figureOf(ratios),
    lcpMs: median(of('product', 'lcpMs')),
    clsMax: Math.max(...of('product', 'cls')),
    tbtMs: median(of('product', 'tbtMs')),
  };
  const pass = { jsRatio: figures.jsRatio.median <= GOALS.jsRatio, lcpMs: figures.lcpMs <= GOALS.lcpMs, cls: figures.clsMax < GOALS.cls, tbtMs: figures.tbtMs <= GOALS.tbtMs };
  const verdict = (key) => (smoke ? 'smoke run, not judged' : pass[key] ? 'PASS' : 'MISS');
  const jsText = `${formatRatio(figures.jsRatio)}; ${kb(median(of('product', 'jsBytes')))} vs ${kb(median(of('baseline', 'jsBytes')))} (on the wire with headers ${kb(median(of('product', 'jsWire')))} vs ${kb(median(of('baseline', 'jsWire')))})`;
  const texts = {
    jsRatio: jsText,
    lcpMs: spread(of('product', 'lcpMs'), ms),
    cls: spread(of('product', 'cls'), (value) => value.toFixed(4)),
    tbtMs: spread(of('product', 'tbtMs'), ms),
  };
  const labels = {
    jsRatio: 'B7 finder page JS before usable (product/React+router baseline, gzip bytes)',
    lcpMs: 'B7 finder page LCP (phone profile)',
    cls: 'B7 finder page CLS (phone profile)',
    tbtMs: 'B7 finder page TBT (phone profile)',
  };
  const goalText = { jsRatio: `≤ ${GOALS.jsRatio}×`, lcpMs: `≤ ${GOALS.lcpMs} ms`, cls: '0 (every load < 0.0001)', tbtMs: `≤ ${GOALS.tbtMs} ms` };
  console.log('');
  for (const key of Object.keys(labels)) console.log(`${labels[key]} = ${texts[key]}; goal ${goalText[key]}: ${verdict(key)}`);

  // Where the product's bytes go: its scripts finished before usable in the median-ratio round.
  const middle = [...rows].sort((a, b) => a.ratio - b.ratio)[Math.floor(rows.length / 2)];
  const fileRows = (scripts) => [...scripts].sort((a, b) => b.bytes - a.bytes).map(({ path, bytes, wire }) => `| \`${path}\` | ${kb(bytes)} | ${kb(wire)} | ${contentsOf(chunkContents[path])} |`);
  console.log(`\nproduct scripts before usable (round ${middle.round}): ${middle.product.scripts.map(({ path, bytes }) => `${path.split('/').pop()} ${kb(bytes)}`).join(', ')}`);
  console.log(`calls: product ${[...new Set(middle.product.calls)].join(' ')}; baseline ${[...new Set(middle.baseline.calls)].join(' ')}`);

  writeSection(
    'b7',
    [
      '## B7: finder page on a phone profile (latest run)',
      '',
      ...Object.keys(labels).map((key) => `- **${labels[key]} = ${texts[key]}**, goal ${goalText[key]}: **${pass[key] ? 'pass' : 'miss'}**`),
      '',
      `Phone profile: Chromium ${browser.version()} (Debian's) via playwright-core, CDP \`Network.emulateNetworkConditions\` (latency ${PROFILE.latencyMs} ms, ${(PROFILE.downloadBytesPerSecond * 8) / 1e6} Mbps down, ${(PROFILE.uploadBytesPerSecond * 8) / 1e3} kbps up), \`Emulation.setCPUThrottlingRate\` ${PROFILE.cpuSlowdown}, viewport ${PROFILE.viewport.width}×${PROFILE.viewport.height} mobile at device scale ${PROFILE.deviceScaleFactor}, a fresh context per load (cache disabled, service workers blocked). The product is the built web app served by the gateway (the page rendered by the gateway for /found/{code}, items and nats-server behind it, a seeded named tag); the baseline (\`tests/bench/finder-baseline\`) is a minimal React + react-router app with only this page, rendered in the browser, with the same text, markup, styles and calls (\`/lang\`, \`GET /api/v1/items/{code}\`), built by Vite and served as static files with \`/api/\` and \`/lang\` proxied to the same gateway. Both go through the same front server that gzips text answers (level ${GZIP_LEVEL}) as nginx does in production; the gateway alone sends its files uncompressed. Loads alternate baseline, product; ${rounds} rounds after one uncounted load of each.`,
      '',
      ...definitions.map((text) => `- ${text}`),
      '',
      '| round | baseline JS | product JS | ratio | baseline usable / LCP / CLS / TBT | product usable / LCP / CLS / TBT |',
      '|---|---|---|---|---|---|',
      ...rows.map(
        ({ round, baseline, product, ratio }) =>
          `| ${round} | ${kb(baseline.jsBytes)} | ${kb(product.jsBytes)} | ${ratio.toFixed(2)}× | ${ms(baseline.usableMs)} / ${ms(baseline.lcpMs)} / ${baseline.cls.toFixed(4)} / ${ms(baseline.tbtMs)} | ${ms(product.usableMs)} / ${ms(product.lcpMs)} / ${product.cls.toFixed(4)} / ${ms(product.tbtMs)} |`,
      ),
      '',
      `- Baseline medians: usable ${spread(of('baseline', 'usableMs'), ms)}, LCP ${spread(of('baseline', 'lcpMs'), ms)}, TBT ${spread(of('baseline', 'tbtMs'), ms)}; FCP ${spread(of('baseline', 'fcpMs').map((value) => value ?? 0), ms)}; product usable ${spread(of('product', 'usableMs'), ms)}, FCP ${spread(of('product', 'fcpMs').map((value) => value ?? 0), ms)}.`,
      `- Product long tasks by usable + ${QUIET_MS} ms in round ${middle.round}: ${middle.product.longTaskList} (evaluating the entry and its chunks, and the app's first render, at 4× slowdown).`,
      '',
      `### Where the product's JS goes (round ${middle.round}, scripts finished before usable)`,
      '',
      'Contents from a second Vite build of apps/web made by the benchmark (same file names as dist/apps/web when the sources are unchanged): the modules of each chunk by package or folder, as shares of the chunk before minification.',
      '',
      '| file | gzip body | on the wire | contents |',
      '|---|---|---|---|',
      ...fileRows(middle.product.scripts),
      `| **product total** | **${kb(middle.product.jsBytes)}** | ${kb(middle.product.jsWire)} | |`,
      ...fileRows(middle.baseline.scripts).map((line) => line.replace('| `', '| baseline `')),
      '',
      ...(pass.jsRatio ? [] : [`What it would take to meet ≤ ${GOALS.jsRatio}× (about ${kb(GOALS.jsRatio * median(of('baseline', 'jsBytes')))}): the baseline is React, react-dom and react-router and nothing else, so the product's landing path may add only about ${kb((GOALS.jsRatio - 1) * median(of('baseline', 'jsBytes')))} to those. The finder route would have to be its own entry without the router (found.html boots a small finder entry that hydrates the prerendered form; react-router loads only when the visitor navigates on), with i18n texts of the one language shown rather than every locale in the entry, without zod and the contracts' schemas on the landing path (the form validates with plain checks already; the item answer needs no runtime schema), without TanStack Query for one GET, and with the thread, modals and push opt-in loaded lazily after the first message. React and react-dom alone are about two thirds of the baseline, so what is left of the budget is the router's share (about 30 KB) plus the 10 %: a finder entry of react, react-dom, the page and its form with no router fits; anything more on the landing path (query library, schemas, all locales) does not. The same split is what brings TBT down: the long tasks above are mostly evaluating this code.`]),
      '',
      `### The app's takeover: all the JS a load fetches (no goal)`,
      '',
      `After the page is usable the app's code still arrives and takes the page over (the thread, the live updates, the other screens); a phone downloads and runs it all the same. Every script of a load until none has been asked for or arrived in ${TAKEOVER_QUIET_MS} ms, the time the last one arrived, and the long tasks' total time over the whole load (4× slowdown):`,
      '',
      '| round | baseline JS / last script / long tasks | product JS / last script / long tasks |',
      '|---|---|---|',
      ...rows.map(({ round, baseline, product }) => `| ${round} | ${kb(baseline.allJsBytes)} / ${ms(baseline.allScriptsEndMs)} / ${ms(baseline.allLongTaskMs)} | ${kb(product.allJsBytes)} / ${ms(product.allScriptsEndMs)} / ${ms(product.allLongTaskMs)} |`),
      '',
      `Product, round ${middle.round}:`,
      '',
      '| file | gzip body | on the wire | contents |',
      '|---|---|---|---|',
      ...fileRows(middle.product.allScripts),
      `| **product total** | **${kb(middle.product.allJsBytes)}** | ${kb(middle.product.allScripts.reduce((sum, { wire }) => sum + wire, 0))} | |`,
      '',
      `- Command: \`npm run bench -- b7 --rounds ${rounds}\` (after \`npm run build\`).`,
      machineLine(),
      `- Date: ${new Date().toISOString()}`,
    ].join('\n'),
    Object.keys(labels).map((key) => summaryRow(labels[key], texts[key], goalText[key], pass[key])),
  );
} finally {
  await browser?.close();
  await Promise.all(fronts.map((server) => new Promise((done) => (server.close(done), server.closeAllConnections()))));
  await stopAll();
  if (db) {
    await db.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await db.end();
  }
  rmSync(work, { recursive: true, force: true });
}
