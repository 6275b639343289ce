import type { JsMsg } from '@nats-io/jetstream';
import { headers as natsHeaders, type MsgHdrs } from '@nats-io/transport-node';
import type { JetStreamStreams } from '../nats/jetstream-streams';
import type { NatsClient } from '../nats/nats.connection';
import { NatsNamespace } from '../nats/nats-namespace';
import { DEAD_LETTER_HEADERS, NatsDeadLetterSink } from './dead-letters';

function sinkRecordingPublishes() {
  const published: Array<{ subject: string; body: string; headers: MsgHdrs; msgID: string }> = [];
  const namespace = new NatsNamespace('t1');
  const nats = {
    namespace,
    js: {
      publish: async (subject: string, body: Uint8Array | string, options: { headers: MsgHdrs; msgID: string }) => {
        published.push({ subject, body: typeof body === 'string' ? body : new TextDecoder().decode(body), ...options });
      },
    },
  } as unknown as NatsClient;
  const streams = {
    ensure: async () => undefined,
    streamName: (key: string) => namespace.stream(key === 'secrets' ? 'HOMING_SECRETS' : 'HOMING_EVENTS'),
    deadLetterSubject: (consumer: string) => namespace.subject(`deadletter.${consumer}`),
  } as unknown as JetStreamStreams;
  return { sink: new NatsDeadLetterSink(nats, streams), published };
}

function messageOf(stream: string, body: string): JsMsg {
  const headers = natsHeaders();
  headers.set('Nats-Msg-Id', '0196a1b2-0000-7000-8000-000000000001');
  headers.set('traceparent', '00-abc-def-01');
  return {
    subject: 't1.identity.login-code.requested.v1',
    data: new TextEncoder().encode(body),
    headers,
    info: { stream, streamSequence: 42, deliveryCount: 1 },
  } as unknown as JsMsg;
}

describe('NatsDeadLetterSink', () => {
  it('keeps a domain event whole, with why and where it came from', async () => {
    const { sink, published } = sinkRecordingPublishes();
    await sink.send('messaging__item-owners', messageOf('T1_HOMING_EVENTS', '{"whole":"event"}'), 'bad payload\r\ninjected: header');
    const [letter] = published;
    expect(letter.subject).toBe('t1.deadletter.messaging__item-owners');
    expect(letter.body).toBe('{"whole":"event"}');
    expect(letter.msgID).toBe('messaging__item-owners:T1_HOMING_EVENTS:42');
    expect(letter.headers.get('traceparent')).toBe('00-abc-def-01');
    expect(letter.headers.get(DEAD_LETTER_HEADERS.reason)).toBe('bad payload injected: header');
    expect(letter.headers.get(DEAD_LETTER_HEADERS.subject)).toBe('identity.login-code.requested.v1');
  });

  it('keeps only the id, subject, consumer and reason of an event of the secrets stream', async () => {
    const { sink, published } = sinkRecordingPublishes();
    const secret = '{"data":{"code":"7K3M9QXR","link":"https://homing.example/login/code?code=7K3M9QXR"}}';
    await sink.send('notifications__login-code', messageOf('T1_HOMING_SECRETS', secret), 'not JSON');
    const [letter] = published;
    expect(JSON.parse(letter.body)).toEqual({
      id: '0196a1b2-0000-7000-8000-000000000001',
      subject: 'identity.login-code.requested.v1',
      consumer: 'notifications__login-code',
      reason: 'not JSON',
    });
    expect(letter.body).not.toContain('7K3M9QXR');
    expect(letter.headers.get('traceparent')).toBe('');
    expect(letter.headers.get(DEAD_LETTER_HEADERS.redacted)).toBe('1');
  });
});
