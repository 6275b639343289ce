import { ApiError } from '../../lib/api-transport';

/**
 * What a failed passkey ceremony means for the screen: the user closed the browser's dialog or it was aborted
 * (`quiet`: nothing to say), the authenticator already holds a passkey of this account (`duplicate`), the gateway
 * answered (`api`: the error catalogue words it), or the browser or authenticator refused (`device`).
 */
export type CeremonyFailure = 'quiet' | 'duplicate' | 'api' | 'device';

export function ceremonyFailure(error: unknown): CeremonyFailure {
  if (error instanceof ApiError) return 'api';
  const name = error instanceof Error ? error.name : '';
  // NotAllowedError: cancelled, timed out, or no passkey chosen (browsers do not tell these apart, by design).
  if (name === 'NotAllowedError' || name === 'AbortError') return 'quiet';
  // Registration's excludeCredentials matched: this authenticator has one of the account's passkeys already.
  if (name === 'InvalidStateError') return 'duplicate';
  return 'device';
}
