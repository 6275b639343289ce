import { ResponseCode } from '@homing/contracts';
import { RpcError, type RpcClient } from '@homing/platform';
import { PushService } from './push.service';

const CONVERSATION = '0b9a7a3e-3f0c-4b8e-9c61-3d5a1f6f2a10';
const SUBSCRIPTION = { endpoint: 'https://push.example/1', keys: { p256dh: 'p'.repeat(87), auth: 'a'.repeat(22) } };

/** Messaging answers the finder's thread as `threads` says, call by call; notifications stores and forgets. */
function setUp(threads: Array<'theirs' | 'gone'>) {
  const calls: Array<[string, unknown]> = [];
  const rpc = {
    request: jest.fn(async (subject: string, payload: unknown) => {
      calls.push([subject, payload]);
      if (subject !== 'messaging.rpc.list-messages') return {};
      if (threads.shift() === 'gone') throw RpcError.forbidden(ResponseCode.FORBIDDEN, 'Only the owner and the finder who wrote can read this conversation.');
      return [{ id: 1, conversation_id: CONVERSATION }];
    }),
  };
  return { service: new PushService(rpc as unknown as RpcClient), calls };
}

describe('PushService.registerFinder', () => {
  it('keeps a finder’s subscription whose conversation is still theirs once it is stored', async () => {
    const { service, calls } = setUp(['theirs', 'theirs']);
    await service.registerFinder('CODE', 'token', SUBSCRIPTION);
    expect(calls.map(([subject]) => subject)).toEqual(['messaging.rpc.list-messages', 'notifications.rpc.register-push', 'messaging.rpc.list-messages']);
  });

  it('takes the subscription back, and refuses, when the conversation went while it was stored', async () => {
    const { service, calls } = setUp(['theirs', 'gone']);
    await expect(service.registerFinder('CODE', 'token', SUBSCRIPTION)).rejects.toMatchObject({ status: 403 });
    expect(calls.at(-1)).toEqual(['notifications.rpc.unregister-push', { conversationId: CONVERSATION, endpoint: SUBSCRIPTION.endpoint }]);
  });
});
