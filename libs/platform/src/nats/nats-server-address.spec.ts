import { natsServerAddressOf, shownNatsUrl } from './nats-server-address';

describe('natsServerAddressOf', () => {
  it('leaves a URL without credentials as it is', () => {
    expect(natsServerAddressOf('nats://nats:4222')).toEqual({ server: 'nats://nats:4222' });
  });

  it('takes the user and password out of the URL it dials', () => {
    expect(natsServerAddressOf('nats://gateway:s%40cret@nats.homing:4222')).toEqual({
      server: 'nats://nats.homing:4222',
      user: 'gateway',
      pass: 's@cret',
    });
  });

  it('keeps a TLS scheme and a user without password', () => {
    expect(natsServerAddressOf('tls://items@nats:4222')).toEqual({ server: 'tls://nats:4222', user: 'items', pass: undefined });
  });
});

describe('shownNatsUrl', () => {
  it('masks credentials', () => {
    expect(shownNatsUrl('nats://gateway:secret@nats:4222')).toBe('nats://***@nats:4222');
  });
});
