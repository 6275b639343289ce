#!/usr/bin/env node
// B6's floor: the library's own render, `qrcode.toString` in a loop, with the options the gateway uses
// (apps/gateway/src/qr/qr-images.ts: SVG, 400 px, 4 modules of margin, error correction M), of random codes from a
// file. Prints one JSON line: CPU µs per render from the process's own accounting.
// Usage: node qr-render-loop.mjs <codes-file> <renders> <public-url>
import { readFileSync } from 'node:fs';
import QRCode from 'qrcode';

const [codesFile, renders, publicUrl] = process.argv.slice(2);
const codes = readFileSync(codesFile, 'utf8').trim().split('\n');
const formatted = (code) => code.match(/.{4}/g).join('-');
const render = (code) => QRCode.toString(`${publicUrl}/found/${formatted(code)}`, { type: 'svg', width: 400, margin: 4, errorCorrectionLevel: 'M' });
for (let warm = 0; warm < 200; warm += 1) await render(codes[warm % codes.length]);
const before = process.cpuUsage();
for (let index = 0; index < Number(renders); index += 1) await render(codes[Math.floor(Math.random() * codes.length)]);
const used = process.cpuUsage(before);
process.stdout.write(`${JSON.stringify({ renders: Number(renders), microsPerRender: (used.user + used.system) / Number(renders) })}\n`);
