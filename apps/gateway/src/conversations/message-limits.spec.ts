import { ResponseCode } from '@homing/contracts';
import { RpcError, RpcTimeoutError, RpcUnavailableError } from '@homing/platform';
import { MESSAGE_LIMITS, messageLimitWait } from '@homing/platform';
import { failedOnOurSide } from './message-limits';

describe('failedOnOurSide', () => {
  it('gives the count back for writes the product failed: messaging away, too slow, or a bug', () => {
    expect(failedOnOurSide(new RpcUnavailableError('messaging.rpc.post-message'))).toBe(true);
    expect(failedOnOurSide(new RpcTimeoutError('messaging.rpc.post-message'))).toBe(true);
    expect(failedOnOurSide(new Error('unexpected'))).toBe(true);
  });

  it('keeps counting writes refused for what they are', () => {
    expect(failedOnOurSide(RpcError.notFound(ResponseCode.ITEM_NOT_FOUND, 'No such item'))).toBe(false);
  });
});

describe('messageLimitWait', () => {
  const remaining = { address: 120_000, tag: 600_000 };

  it('lets writes through up to each limit', () => {
    expect(messageLimitWait({ address: MESSAGE_LIMITS.perAddressPerTag, tag: MESSAGE_LIMITS.perTag }, remaining)).toBe(0);
  });

  it('makes an address past its limit on a tag wait for its own window', () => {
    expect(messageLimitWait({ address: MESSAGE_LIMITS.perAddressPerTag + 1, tag: 1 }, remaining)).toBe(120_000);
  });

  it('makes everyone wait for the tag’s window once the tag had too many, whatever the address', () => {
    expect(messageLimitWait({ address: 1, tag: MESSAGE_LIMITS.perTag + 1 }, remaining)).toBe(600_000);
  });

  it('never says to retry at once', () => {
    expect(messageLimitWait({ address: 99, tag: 1 }, { address: 0, tag: 0 })).toBe(1000);
  });
});
