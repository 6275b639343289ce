import { isDependencyUnavailable, RpcError, RpcTimeoutError, RpcUnavailableError } from './rpc-error';

describe('isDependencyUnavailable', () => {
  it('counts another service that is away or too slow as an unavailable dependency', () => {
    expect(isDependencyUnavailable(new RpcUnavailableError('identity.rpc.ensure-user'))).toBe(true);
    expect(isDependencyUnavailable(new RpcTimeoutError('identity.rpc.ensure-user'))).toBe(true);
  });

  it('counts a database that is away, but not a refusal or a bug', () => {
    expect(isDependencyUnavailable(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }))).toBe(true);
    expect(isDependencyUnavailable(new RpcError({ status: 404, response_code: 'NOT_FOUND', message: 'gone' }))).toBe(false);
    expect(isDependencyUnavailable(new TypeError('undefined is not a function'))).toBe(false);
  });
});
