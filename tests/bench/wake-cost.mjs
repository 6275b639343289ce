#!/usr/bin/env node
// What waking a process costs on this host: a TCP server doing a fixed piece of work per request (pinned to the
// servers' core), asked back to back and then paced (by default 50 a second, B3's rate), its CPU per request from its
// own accounting. Back to back, the server never sleeps; paced, it sleeps between requests, and each wakes it on a
// core other processes ran on meanwhile. The difference is what every hop of a pipeline pays per message at a modest
// rate, whatever its code: B3's product wakes a dozen processes a message, its plain pipeline a few (docs/benchmarks.md,
// "Stop 77"). Not part of `npm run bench`.
// Usage: node tests/bench/wake-cost.mjs [--rate 50] [--requests 1000] [--rounds 3] [--work 20000]
import { spawn } from 'node:child_process';
import net from 'node:net';
import { cpuMicros, freePort, LOAD_CORE, option, SERVER_CORE } from './harness.mjs';

if (process.argv[2] === 'serve') {
  const [port, work] = process.argv.slice(3).map(Number);
  net
    .createServer((socket) =>
      socket.on('data', (data) => {
        // The fixed piece of work: a loop V8 cannot drop, its result sent back.
        let sum = 0;
        for (let index = 0; index < work; index += 1) sum += (index * data[0]) % 7;
        socket.write(`${sum}\n`);
      }),
    )
    .listen(port, '127.0.0.1', () => process.stdout.write('ready\n'));
} else {
  const rate = Number(option('rate', '50'));
  const requests = Number(option('requests', '1000'));
  const rounds = Number(option('rounds', '3'));
  const work = Number(option('work', '20000'));
  const port = await freePort();
  const server = spawn('taskset', ['-c', SERVER_CORE, process.execPath, import.meta.filename, 'serve', String(port), String(work)], { stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    await new Promise((ready) => server.stdout.once('data', ready));
    spawn('taskset', ['-p', '-c', LOAD_CORE, String(process.pid)], { stdio: 'ignore' });
    const socket = net.connect(port, '127.0.0.1');
    await new Promise((connected) => socket.once('connect', connected));
    const ask = () => new Promise((answered) => (socket.once('data', answered), socket.write('a')));
    const cpu = () => {
      const { user, system } = cpuMicros(server.pid);
      return user + system;
    };
    const measure = async (paceMs) => {
      const before = cpu();
      for (let index = 0; index < requests; index += 1) {
        const started = performance.now();
        await ask();
        if (paceMs > 0) await new Promise((done) => setTimeout(done, Math.max(0, paceMs - (performance.now() - started))));
      }
      return (cpu() - before) / requests;
    };
    await measure(0);
    for (let round = 1; round <= rounds; round += 1) {
      const backToBack = await measure(0);
      const paced = await measure(1000 / rate);
      console.log(`round ${round}: back to back ${backToBack.toFixed(0)} µs a request, paced at ${rate}/s ${paced.toFixed(0)} µs (${(paced / backToBack).toFixed(2)}×)`);
    }
    socket.destroy();
  } finally {
    server.kill();
  }
}
