import { randomUUID } from 'node:crypto';
import { signAccessToken } from '@homing/platform';
import { testKeys } from '@homing/testing';

/**
 * An access token for a user, signed with the test key, as identity would issue it: for suites about other services
 * that need a logged-in caller. Its session is not known to identity (refresh and logout need a real log-in).
 */
export function testAccessToken(user: { id?: string; email?: string; isAdmin?: boolean } = {}): { token: string; userId: string } {
  const userId = user.id ?? randomUUID();
  const token = signAccessToken(
    { id: userId, email: user.email ?? `${userId}@example.test`, is_admin: user.isAdmin ?? false, sid: randomUUID(), jti: randomUUID() },
    testKeys().JWT_PRIVATE_KEY,
  );
  return { token, userId };
}
