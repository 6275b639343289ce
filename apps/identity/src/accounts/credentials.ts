import { ResponseCode } from '@homing/contracts';
import { RpcError } from '@homing/platform';

/** One answer for a wrong password, an unknown address, a locked account and a wrong code: none tells which. */
export function invalidCredentials(): RpcError {
  return new RpcError({ status: 401, response_code: ResponseCode.INVALID_CREDENTIALS, message: 'Invalid login credentials.' });
}
