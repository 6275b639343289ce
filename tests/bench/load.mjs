#!/usr/bin/env node
// The benchmarks' load generator, run in its own process (pinned to its own core by the caller): a fixed number of
// GETs, `{code}` in the path taken at random from a file of codes, then one JSON line with what was sent and what
// came back. Usage: node load.mjs <url> <codes-file|-> <requests> <connections> [path, default /api/v1/items/{code}]
import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';

const [url, codesFile, requests, connections, path = '/api/v1/items/{code}'] = process.argv.slice(2);
const listed = codesFile.endsWith('.json') ? JSON.parse(readFileSync(codesFile, 'utf8')) : null;
const codes = listed ?? (codesFile === '-' ? [''] : readFileSync(codesFile, 'utf8').trim().split('\n'));
const pick = () => codes[Math.floor(Math.random() * codes.length)];
// LOAD_SPREAD_ADDRESSES=1: each request from a client address of its own (X-Forwarded-For, for a gateway that
// trusts 127.0.0.1 as its proxy), as many visitors are, so no per-address rate limit is reached.
const spread = process.env.LOAD_SPREAD_ADDRESSES === '1';
const address = () => `10.${Math.floor(Math.random() * 256)}.${Math.floor(Math.random() * 256)}.${Math.floor(Math.random() * 256)}`;
const next = listed
  ? (request) => ({ ...request, ...pick() })
  : (request) => ({ ...request, path: path.replace('{code}', pick()), ...(spread ? { headers: { ...request.headers, 'x-forwarded-for': address() } } : {}) });
const started = performance.now();
const result = await autocannon({
  url,
  connections: Number(connections),
  amount: Number(requests),
  requests: [{ method: 'GET', setupRequest: next }],
});
process.stdout.write(
  `${JSON.stringify({ requests: result.requests.total, non2xx: result.non2xx, statuses: result.statusCodeStats, errors: result.errors, rps: result.requests.total / ((performance.now() - started) / 1000), p50: result.latency.p50, p99: result.latency.p99 })}\n`,
);
