import { Agent } from 'node:https';
import { readFileSync } from 'node:fs';
import webpush, { WebPushError } from 'web-push';
import { PushSink } from './push-sink';

// The local push service speaks Web Push as browsers' push services do: what web-push encrypts and signs, it decrypts
// and checks; what it is told to refuse, it refuses.
describe('the local push service', () => {
  const sink = new PushSink();
  const vapid = webpush.generateVAPIDKeys();
  let agent: Agent;
  const send = (subscription: ReturnType<PushSink['subscribe']>, payload: string, vapidDetails = { subject: 'mailto:tests@homing.test', ...vapid }) =>
    webpush.sendNotification(subscription, payload, { TTL: 60, vapidDetails, agent });

  beforeAll(async () => {
    await sink.start();
    agent = new Agent({ ca: readFileSync(sink.caPath) });
  });
  afterAll(() => sink.stop());

  it('decrypts an aes128gcm payload and checks the VAPID JWT', async () => {
    const subscription = sink.subscribe();
    const payload = JSON.stringify({ kind: 'new-message', url: '/found/ABCD-EFGH-JKMN-PQRS', padding: 'x'.repeat(3000) });
    expect((await send(subscription, payload)).statusCode).toBe(201);
    const [push] = sink.pushesTo(subscription);
    expect(push.text).toBe(payload);
    expect(push.ttl).toBe(60);
    expect(push.vapid).toMatchObject({ aud: `https://${sink.host}`, sub: 'mailto:tests@homing.test', publicKey: vapid.publicKey });
  });

  it('refuses a payload encrypted for other keys', async () => {
    const subscription = sink.subscribe();
    const stranger = sink.subscribe();
    await expect(send({ ...subscription, keys: stranger.keys }, 'hello')).rejects.toMatchObject({ statusCode: 400 });
    expect(sink.pushesTo(subscription)).toHaveLength(0);
  });

  it('answers planned errors with their headers, then accepts again', async () => {
    const subscription = sink.subscribe();
    sink.answerNext(subscription, 429, { headers: { 'Retry-After': '3' } });
    const refused = await send(subscription, 'hello').catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(WebPushError);
    expect((refused as WebPushError).statusCode).toBe(429);
    expect((refused as WebPushError).headers['retry-after']).toBe('3');
    expect((await send(subscription, 'hello')).statusCode).toBe(201);
  });
});
