#!/usr/bin/env node
// B6: the QR SVG endpoint, GET /qr/{code}.
// - uncached: CPU per request of /qr over random codes of a table far larger than the render cache (gateway, items,
//   nats-server and items' PostgreSQL backends: the existence check of a code not scanned lately), against the
//   library's own render, `qrcode.toString` in a loop with the same options. Goal ≤ 1.5× (issue 29).
// - cached: CPU per request of /qr over a few hot codes (rendered and known already) against bare Fastify sending
//   one SVG held in memory; the figure is static / cached, as throughput per CPU. Goal ≥ 0.8×.
// Servers on core 0, load on core 1, alternating rounds. Usage: npm run bench -- b6 [--rounds 3 --requests 2000 --cpu-prof DIR] [--smoke]
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { benchKeys } from './bench-env.mjs';
import { backendsOf, breakdown, ensureDatabase, figureOf, formatRatio, freePort, LOAD_CORE, loadPinned, machineLine, measureCpu, option, runItems, seedCodeFiles, SERVER_CORE, smoke, startPinned, startServicePinned, stopAll, summaryRow, waitReady, writeSection } from './harness.mjs';

const rounds = Number(option('rounds', smoke ? '1' : '3'));
// --cpu-prof DIR: gateway and items write V8 CPU profiles there when they stop (see profile-summary.mjs).
const profileDir = option('cpu-prof', undefined);
const profiling = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${resolve(profileDir)}`] : [];
const requests = Number(option('requests', smoke ? '300' : '2000'));
const connections = Number(option('connections', '10'));
const ROWS = smoke ? 2_000 : 50_000;
const HOT_TAGS = 50;
// Issue 29's figures.
const GOALS = { uncached: 1.5, cached: 0.8 };
const PUBLIC_URL = 'http://localhost:8080';

const namespace = `bench_${randomBytes(3).toString('hex')}`;
const schema = `items_${namespace}`;
const databaseUrl = process.env.DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/homing_test';
const work = mkdtempSync(join(tmpdir(), 'homing-b6-'));

/** The library's own render in a loop, on the server core: CPU µs per render. */
function renderLoop(codesFile, renders) {
  const out = execFileSync('taskset', ['-c', SERVER_CORE, process.execPath, resolve(import.meta.dirname, 'qr-render-loop.mjs'), codesFile, String(renders), PUBLIC_URL], { encoding: 'utf8' });
  return JSON.parse(out.trim().split('\n').pop()).microsPerRender;
}

let db;
try {
  const natsPort = await freePort();
  const nats = startPinned('nats-server', ['-js', '-a', '127.0.0.1', '-p', String(natsPort), '-sd', join(work, 'jetstream')], {}, 'ignore');
  const productEnv = { DATABASE_URL: databaseUrl, DATABASE_SCHEMA: schema, NATS_URL: `nats://127.0.0.1:${natsPort}`, NATS_NAMESPACE: namespace, NODE_ENV: 'production', PUBLIC_URL, ...benchKeys() };
  db = await ensureDatabase(databaseUrl);
  runItems(['migrate'], productEnv);
  const { codes, codesFile, hotFile } = await seedCodeFiles(db, schema, { rows: ROWS, hotTags: HOT_TAGS, work });

  const [itemsPort, gatewayPort, baselinePort] = [await freePort(), await freePort(), await freePort()];
  const items = startServicePinned('items', { ...productEnv, PORT: String(itemsPort) }, profiling);
  const gateway = startServicePinned('gateway', { ...productEnv, PORT: String(gatewayPort), TRUSTED_PROXIES: '127.0.0.1' }, profiling);
  await Promise.all([itemsPort, gatewayPort].map((port) => waitReady(`http://127.0.0.1:${port}/health/ready`)));
  // The static route sends what the gateway sends for a hot code.
  const staticSvg = await (await fetch(`http://127.0.0.1:${gatewayPort}/qr/${codes[0]}`)).text();
  const baseline = startPinned(process.execPath, [resolve(import.meta.dirname, 'baseline-server.mjs')], { DATABASE_URL: databaseUrl, DATABASE_SCHEMA: schema, PORT: String(baselinePort), STATIC_SVG: staticSvg });
  await waitReady(`http://127.0.0.1:${baselinePort}/health/ready`);

  // /qr is rate limited per client address: the load comes from many, as it would.
  const send = (port, path, file = '-') => (amount) => loadPinned({ url: `http://127.0.0.1:${port}`, path, codesFile: file, requests: amount, connections, spreadAddresses: true });
  const productProcesses = async () => [
    { name: 'gateway', pid: gateway.pid },
    { name: 'items', pid: items.pid },
    { name: 'nats', pid: nats.pid },
    ...(await backendsOf(db, items.pid)).map((pid) => ({ name: 'postgres', pid })),
  ];

  // /proc counts CPU in 10 ms ticks: answers from memory (15–30 µs) are timed over 25× the requests, so that each is
  // some 50 ticks rather than 15 (at 5×, one tick moved the cached ratio by a tenth). The uncached route is warmed by
  // a round's requests (the library's loop by 200 renders), so that neither side is timed while its code compiles.
  const memoryRequests = requests * 25;
  console.log(`B6: ${requests} requests per round (uncached: random codes of ${ROWS}; cached: ${memoryRequests} requests of ${HOT_TAGS} hot codes), ${connections} connections, servers on core ${SERVER_CORE}, load on core ${LOAD_CORE}\n`);
  console.log('round   render loop µs   uncached /qr µs (ratio)   static µs   cached /qr µs (static/cached)');
  const rows = [];
  for (let round = 1; round <= rounds; round += 1) {
    const library = renderLoop(codesFile, requests);
    const uncached = await measureCpu({ name: 'uncached', processes: productProcesses, send: send(gatewayPort, '/qr/{code}', codesFile), requests, warmUp: requests });
    const staticRoute = await measureCpu({ name: 'static', processes: [{ name: 'fastify', pid: baseline.pid }], send: send(baselinePort, '/static/qr.svg'), requests: memoryRequests });
    const cached = await measureCpu({ name: 'cached', processes: productProcesses, send: send(gatewayPort, '/qr/{code}', hotFile), requests: memoryRequests, warmUp: HOT_TAGS * 10 });
    const ratios = { uncached: uncached.microsPerRequest / library, cached: staticRoute.microsPerRequest / cached.microsPerRequest };
    rows.push({ round, library, uncached, staticRoute, cached, ratios });
    console.log(
      `${String(round).padStart(5)}   ${library.toFixed(0).padStart(14)}   ${uncached.microsPerRequest.toFixed(0).padStart(8)} (${ratios.uncached.toFixed(2)}×)         ${staticRoute.microsPerRequest.toFixed(0).padStart(9)}   ${cached.microsPerRequest.toFixed(0).padStart(8)} (${ratios.cached.toFixed(2)}×)`,
    );
    console.log(`        uncached by process: ${breakdown(uncached)}; cached by process: ${breakdown(cached)}`);
  }
  const figures = { uncached: figureOf(rows.map((row) => row.ratios.uncached)), cached: figureOf(rows.map((row) => row.ratios.cached)) };
  const pass = { uncached: figures.uncached.median <= GOALS.uncached, cached: figures.cached.median >= GOALS.cached };
  const labels = { uncached: 'B6 QR uncached (/qr vs qrcode.toString loop, CPU)', cached: 'B6 QR cached (static route CPU / cached /qr CPU)' };
  const goalText = { uncached: `≤ ${GOALS.uncached}×`, cached: `≥ ${GOALS.cached}×` };
  console.log('');
  for (const key of Object.keys(GOALS)) console.log(`${labels[key]} = ${formatRatio(figures[key])}; goal ${goalText[key]}: ${smoke ? 'smoke run, not judged' : pass[key] ? 'PASS' : 'MISS'}`);
  writeSection(
    'b6',
    [
      '## B6: QR SVG endpoint (latest run)',
      '',
      ...Object.keys(GOALS).map((key) => `- **${labels[key]} = ${formatRatio(figures[key])}**, goal ${goalText[key]}: **${pass[key] ? 'pass' : 'miss'}**`),
      '',
      '| round | qrcode.toString µs CPU | uncached /qr µs (req/s) | ratio | static route µs (req/s) | cached /qr µs (req/s) | static/cached |',
      '|---|---|---|---|---|---|---|',
      ...rows.map(
        ({ round, library, uncached, staticRoute, cached, ratios }) =>
          `| ${round} | ${library.toFixed(0)} | ${uncached.microsPerRequest.toFixed(0)} (${uncached.rps.toFixed(0)}) | ${ratios.uncached.toFixed(2)}× | ${staticRoute.microsPerRequest.toFixed(0)} (${staticRoute.rps.toFixed(0)}) | ${cached.microsPerRequest.toFixed(0)} (${cached.rps.toFixed(0)}) | ${ratios.cached.toFixed(2)}× |`,
      ),
      '',
      ...rows.map(({ round, uncached, cached }) => `- round ${round} by process: uncached ${breakdown(uncached)}; cached ${breakdown(cached)}`),
      '',
      `- Command: \`npm run bench -- b6 --rounds ${rounds} --requests ${requests}\` (after \`npm run build\`). Uncached: random codes of ${ROWS} tags (renders mostly miss the gateway's 24 MB render cache, and the code's existence is asked of items); cached: ${HOT_TAGS} hot codes, ${memoryRequests} requests, as for the static route (answers from memory take few of /proc's 10 ms ticks); the uncached route warmed by as many requests as a round sends. 400 px SVG.`,
      machineLine(),
      `- Date: ${new Date().toISOString()}`,
    ].join('\n'),
    Object.keys(GOALS).map((key) => summaryRow(labels[key], formatRatio(figures[key]), goalText[key], pass[key])),
  );
} finally {
  await stopAll();
  if (db) {
    await db.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await db.end();
  }
  rmSync(work, { recursive: true, force: true });
}
