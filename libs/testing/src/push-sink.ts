import { execFileSync } from 'node:child_process';
import { createDecipheriv, createECDH, createPublicKey, hkdfSync, randomBytes, randomUUID, verify, type ECDH } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expectEventually } from './eventually';

/** A subscription as a browser's `PushSubscription.toJSON()` gives it. */
export interface SinkSubscription {
  endpoint: string;
  expirationTime: null;
  keys: { p256dh: string; auth: string };
}

/** One push as the sink received and decrypted it. */
export interface ReceivedPush {
  endpoint: string;
  /** The decrypted payload, parsed as JSON when it is JSON. */
  payload: unknown;
  text: string;
  ttl: number;
  /** The VAPID JWT (`token`) and its claims (`aud`, `exp`, `sub`), its signature checked with the `k=` key. */
  vapid: { aud: string; exp: number; sub: string; publicKey: string; token: string };
  /** When the push arrived (ms since the epoch): latency figures use it. */
  receivedAt: number;
}

interface Subscriber {
  ecdh: ECDH;
  publicKey: Buffer;
  auth: Buffer;
  /** Answers to give instead of accepting, in order (404, 410, 429 …). */
  answers: Array<{ status: number; headers?: Record<string, string> }>;
}

/**
 * A local push service for tests and development: an https server (a self-signed certificate made with the
 * `openssl` CLI at start; clients trust it through `caPath`, e.g. `NODE_EXTRA_CA_CERTS`) that accepts Web Push
 * requests as a browser's push service would. It checks the VAPID JWT (ES256 over the endpoint's origin, signed by
 * the `k=` key), decrypts the RFC 8291 aes128gcm payload with the subscription's private keys, and records it. It can
 * answer the next pushes to a subscription with an error (410, 429 with Retry-After …).
 */
export class PushSink {
  readonly received: ReceivedPush[] = [];
  /** Requests refused: by a planned answer, or because they broke the protocol (then with a reason); `at` in epoch ms. */
  readonly refused: Array<{ endpoint: string; status: number; reason?: string; at: number }> = [];
  private readonly subscribers = new Map<string, Subscriber>();
  private server?: Server;
  private directory?: string;
  private port = 0;

  /** `localhost:<port>`: the entry to add to the push services a test's notifications may call. */
  get host(): string {
    return `localhost:${this.port}`;
  }

  /** The PEM file of the sink's certificate, for the clients that must trust it. */
  get caPath(): string {
    if (!this.directory) throw new Error('the push sink is not started');
    return join(this.directory, 'cert.pem');
  }

  async start(): Promise<this> {
    this.directory = mkdtempSync(join(tmpdir(), 'push-sink-'));
    // node:crypto cannot make X.509 certificates: the openssl CLI can, in one call.
    execFileSync(
      'openssl',
      ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '2', '-subj', '/CN=localhost',
        '-addext', 'subjectAltName=DNS:localhost', '-keyout', join(this.directory, 'key.pem'), '-out', join(this.directory, 'cert.pem')],
      { stdio: 'ignore' },
    );
    const server = createServer({ key: readFileSync(join(this.directory, 'key.pem')), cert: readFileSync(this.caPath) }, (request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => this.handle(request, Buffer.concat(chunks), response));
    });
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    this.port = (server.address() as { port: number }).port;
    return this;
  }

  /** A new subscription on this push service, with keys as a browser makes them (P-256 and a 16-byte auth secret). */
  subscribe(): SinkSubscription {
    const ecdh = createECDH('prime256v1');
    const publicKey = ecdh.generateKeys();
    const auth = randomBytes(16);
    const endpoint = `https://${this.host}/push/${randomUUID()}`;
    this.subscribers.set(endpoint, { ecdh, publicKey, auth, answers: [] });
    return { endpoint, expirationTime: null, keys: { p256dh: publicKey.toString('base64url'), auth: auth.toString('base64url') } };
  }

  /** Answers the next `times` pushes to this subscription with `status` (and headers, e.g. Retry-After). */
  answerNext(subscription: SinkSubscription, status: number, { times = 1, headers }: { times?: number; headers?: Record<string, string> } = {}): void {
    const subscriber = this.subscribers.get(subscription.endpoint);
    if (!subscriber) throw new Error('not a subscription of this push sink');
    for (let i = 0; i < times; i += 1) subscriber.answers.push({ status, headers });
  }

  pushesTo(subscription: SinkSubscription): ReceivedPush[] {
    return this.received.filter((push) => push.endpoint === subscription.endpoint);
  }

  async waitForPushes(subscription: SinkSubscription, count = 1, timeoutMs = 20_000): Promise<ReceivedPush[]> {
    return expectEventually(
      () => {
        const pushes = this.pushesTo(subscription);
        if (pushes.length < count) throw new Error(`${pushes.length} of ${count} pushes arrived`);
        return pushes;
      },
      { timeoutMs },
    );
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
    if (this.directory) rmSync(this.directory, { recursive: true, force: true });
  }

  private handle(request: IncomingMessage, body: Buffer, response: ServerResponse): void {
    const endpoint = `https://${this.host}${request.url ?? ''}`;
    const subscriber = this.subscribers.get(endpoint);
    const answer = (status: number, reason?: string, headers: Record<string, string> = {}) => {
      this.refused.push({ endpoint, status, reason, at: Date.now() });
      response.writeHead(status, headers).end(reason ?? '');
    };
    if (request.method !== 'POST' || !subscriber) return answer(404, 'no such subscription');
    const planned = subscriber.answers.shift();
    if (planned) return answer(planned.status, undefined, planned.headers);
    try {
      const vapid = this.checkVapid(request.headers.authorization ?? '');
      const ttl = Number(request.headers.ttl);
      if (!Number.isInteger(ttl) || ttl < 0) throw new Error('a TTL header is required');
      if (request.headers['content-encoding'] !== 'aes128gcm') throw new Error('Content-Encoding must be aes128gcm');
      const text = decrypt(body, subscriber).toString('utf8');
      this.received.push({ endpoint, payload: parseJson(text), text, ttl, vapid, receivedAt: Date.now() });
      response.writeHead(201).end();
    } catch (error) {
      answer(400, (error as Error).message);
    }
  }

  /** `Authorization: vapid t=<JWT>, k=<public key>` (RFC 8292): ES256 over the push service's origin, not expired. */
  private checkVapid(authorization: string): ReceivedPush['vapid'] {
    const match = /^vapid t=([\w-]+\.[\w-]+\.[\w-]+), k=([\w-]+)$/.exec(authorization);
    if (!match) throw new Error('no VAPID authorization');
    const [header, claims, signature] = match[1].split('.');
    const publicKey = Buffer.from(match[2], 'base64url');
    const key = createPublicKey({
      key: { kty: 'EC', crv: 'P-256', x: publicKey.subarray(1, 33).toString('base64url'), y: publicKey.subarray(33, 65).toString('base64url') },
      format: 'jwk',
    });
    if ((JSON.parse(Buffer.from(header, 'base64url').toString()) as { alg?: string }).alg !== 'ES256') throw new Error('the VAPID JWT must be ES256');
    if (!verify('sha256', Buffer.from(`${header}.${claims}`), { key, dsaEncoding: 'ieee-p1363' }, Buffer.from(signature, 'base64url'))) {
      throw new Error('the VAPID signature does not verify');
    }
    const payload = JSON.parse(Buffer.from(claims, 'base64url').toString()) as { aud: string; exp: number; sub: string };
    if (payload.aud !== `https://${this.host}`) throw new Error(`the VAPID audience is ${payload.aud}`);
    const now = Date.now() / 1000;
    if (!(payload.exp > now && payload.exp <= now + 24 * 60 * 60)) throw new Error('the VAPID JWT is expired or lives over 24 h');
    if (!/^(mailto:|https:)/.test(payload.sub)) throw new Error('the VAPID subject must be mailto: or https:');
    return { ...payload, publicKey: match[2], token: match[1] };
  }
}

/** RFC 8291 (with RFC 8188 aes128gcm records): the user agent's side of Web Push encryption. */
function decrypt(body: Buffer, subscriber: Subscriber): Buffer {
  const salt = body.subarray(0, 16);
  const recordSize = body.readUInt32BE(16);
  const keyIdLength = body[20];
  const serverPublicKey = body.subarray(21, 21 + keyIdLength);
  const ciphertext = body.subarray(21 + keyIdLength);
  const secret = subscriber.ecdh.computeSecret(serverPublicKey);
  const keyInfo = Buffer.concat([Buffer.from('WebPush: info\0'), subscriber.publicKey, serverPublicKey]);
  const ikm = Buffer.from(hkdfSync('sha256', secret, subscriber.auth, keyInfo, 32));
  const cek = Buffer.from(hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: aes128gcm\0'), 16));
  const baseNonce = Buffer.from(hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: nonce\0'), 12));
  const plain: Buffer[] = [];
  for (let offset = 0, sequence = 0; offset < ciphertext.length; offset += recordSize, sequence += 1) {
    const record = ciphertext.subarray(offset, offset + recordSize);
    const nonce = Buffer.from(baseNonce);
    nonce.writeUInt32BE((nonce.readUInt32BE(8) ^ sequence) >>> 0, 8);
    const decipher = createDecipheriv('aes-128-gcm', cek, nonce);
    decipher.setAuthTag(record.subarray(record.length - 16));
    const padded = Buffer.concat([decipher.update(record.subarray(0, record.length - 16)), decipher.final()]);
    // Content, then a delimiter (2 in the last record, 1 before), then zero padding.
    let end = padded.length - 1;
    while (end >= 0 && padded[end] === 0) end -= 1;
    if (padded[end] !== 1 && padded[end] !== 2) throw new Error('no padding delimiter in a record');
    plain.push(padded.subarray(0, end));
  }
  return Buffer.concat(plain);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
