#!/usr/bin/env node
// B1's load generator, run in its own process (pinned to its own core by the caller): a fixed number of scans of
// random codes from a file, then one JSON line with what was sent and what came back.
// Usage: node load.mjs <url> <codes-file> <requests> <connections>
import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';

const [url, codesFile, requests, connections] = process.argv.slice(2);
const codes = readFileSync(codesFile, 'utf8').trim().split('\n');
const started = performance.now();
const result = await autocannon({
  url,
  connections: Number(connections),
  amount: Number(requests),
  requests: [{ method: 'GET', setupRequest: (request) => ({ ...request, path: `/api/v1/items/${codes[Math.floor(Math.random() * codes.length)]}` }) }],
});
process.stdout.write(`${JSON.stringify({ requests: result.requests.total, non2xx: result.non2xx, errors: result.errors, rps: result.requests.total / ((performance.now() - started) / 1000) })}\n`);
