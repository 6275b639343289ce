import { useCallback, useSyncExternalStore } from 'react';

import type { TokenClaims } from './api-session';
import { useApi } from './api-context';

export interface Session {
  token: string | null;
  /** The logged-in user as the token names them; null when logged out (the spec's user id 0). */
  user: TokenClaims | null;
}

/** The login state, re-rendering on login, logout and refresh. */
export function useSession(): Session {
  const api = useApi();
  const subscribe = useCallback((onChange: () => void) => api.onSessionChange(onChange), [api]);
  const token = useSyncExternalStore(subscribe, () => api.getToken());
  return { token, user: token ? api.claims() : null };
}
