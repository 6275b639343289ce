import { randomUUID } from 'node:crypto';
import { connect, headers as natsHeaders, type NatsConnection } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import { deleteNamespaceStreams, isolatedName, testInfra } from '@homing/testing';
import { JetStreamPublishError, JetStreamPublisher } from '../src';

// The outbox relay's publish against a real JetStream: what the stream acknowledges, its de-duplication by message id,
// and the refusals the relay must see as failures (and so roll its batch back and send it again).
describe('JetStreamPublisher', () => {
  const infra = testInfra();
  const namespace = isolatedName();
  const stream = `${namespace.toUpperCase()}_PUBLISHER`;
  const subject = `${namespace}.publisher.test`;
  const body = new TextEncoder().encode(JSON.stringify({ hello: 'stream' }));
  let nc: NatsConnection;
  const publisher = new JetStreamPublisher();

  beforeAll(async () => {
    nc = await connect({ servers: infra.natsUrl });
    await (await jetstreamManager(nc)).streams.add({ name: stream, subjects: [`${namespace}.publisher.>`], duplicate_window: 60_000_000_000 });
  });

  afterAll(async () => {
    await deleteNamespaceStreams(nc, namespace);
    await nc.close();
  });

  it('stores a message with its id and headers, and answers with the stream and sequence', async () => {
    const headers = natsHeaders();
    headers.set('x-correlation-id', 'c-1');
    const ack = await publisher.publish(nc, subject, body, { msgID: randomUUID(), headers });
    expect(ack.stream).toBe(stream);
    expect(ack.seq).toBeGreaterThan(0);
    expect(ack.duplicate).toBeUndefined();
    const stored = await (await jetstreamManager(nc)).streams.getMessage(stream, { seq: ack.seq });
    expect(stored?.header.get('x-correlation-id')).toBe('c-1');
    expect(stored?.json()).toEqual({ hello: 'stream' });
  });

  it('stores a message id once: publishing it again is acknowledged as a duplicate of the same sequence', async () => {
    const msgID = randomUUID();
    const results = await Promise.all([1, 2, 3].map(() => publisher.publish(nc, subject, body, { msgID })));
    const first = results.find((ack) => !ack.duplicate);
    expect(results.filter((ack) => !ack.duplicate)).toHaveLength(1);
    expect(results.every((ack) => ack.seq === first?.seq)).toBe(true);
  });

  it('fails, rather than resolving, when no stream takes the subject', async () => {
    const failure = publisher.publish(nc, `${namespace}.nowhere`, body, { msgID: randomUUID(), timeoutMs: 2000 });
    await expect(failure).rejects.toThrow(JetStreamPublishError);
    await expect(failure).rejects.toMatchObject({ failure: 'no-stream', message: expect.stringContaining('no stream stores') });
  });

  it('fails when the stream refuses the message', async () => {
    const headers = natsHeaders();
    // An expectation the stream cannot meet: JetStream answers with an error, not an acknowledgement.
    headers.set('Nats-Expected-Stream', 'SOME_OTHER_STREAM');
    await expect(publisher.publish(nc, subject, body, { msgID: randomUUID(), headers })).rejects.toMatchObject({ failure: 'refused', message: expect.stringMatching(/JetStream refused/) });
  });

  it('fails, naming the size limit, for a message over the server’s limit, which is never sent', async () => {
    const oversized = new Uint8Array(nc.info?.max_payload ? nc.info.max_payload + 1 : 2_000_000);
    await expect(publisher.publish(nc, subject, oversized, { msgID: randomUUID() })).rejects.toMatchObject({ failure: 'not-sent', message: expect.stringMatching(/could not be sent: .*max_payload/i) });
  });
});
