import { ApiError } from './api-transport';

// Product spec §9: when a token is refreshed.
export const TOKEN_REFRESH_THRESHOLD_MS = 30 * 60 * 1000;
export const TOKEN_REFRESH_CHECK_INTERVAL_MS = 1000;

// WARNING: persisted in users' browsers; renaming it logs everyone out.
export const tokenStorageKey = 'homing.token';

export type TokenStorage = Pick<Storage, 'getItem' | 'setItem' | 'removeItem'>;

/** How a refresh ended: a fresh token, the old one kept for a later try (no answer, 5xx), or the session over. */
export type RefreshOutcome = 'refreshed' | 'kept' | 'ended';

export type SessionListener = (token: string | null, reason: 'login' | 'logout' | 'refresh' | 'expired') => void;

/** The claims the client reads from its own token; the gateway verifies the signature, not this code. */
export interface TokenClaims {
  id: string;
  email: string;
  exp: number;
  is_admin?: boolean;
}

export function decodeToken(token: string): TokenClaims | null {
  try {
    const payload = token.split('.')[1];
    if (!payload) return null;
    const bytes = Uint8Array.from(atob(payload.replace(/-/g, '+').replace(/_/g, '/')), (char) => char.charCodeAt(0));
    const claims = JSON.parse(new TextDecoder().decode(bytes)) as Partial<TokenClaims>;
    return typeof claims.exp === 'number' && typeof claims.id === 'string' ? (claims as TokenClaims) : null;
  } catch {
    return null;
  }
}

/**
 * The login session: the token as stored in the browser, who wants to know when it changes, and keeping it fresh
 * (`refreshCall` is the transport's one try of `POST /auth/refresh-token`).
 */
export class ApiSession {
  private token: string | null;
  private lastRefreshCheck = -Infinity;
  private refreshing: Promise<RefreshOutcome> | null = null;
  private readonly listeners = new Set<SessionListener>();
  // False while a logout's calls run (`unstoreToken`): the token is then this page's alone.
  private stored = true;

  constructor(
    private readonly storage: TokenStorage | null,
    private readonly now: () => number,
    private readonly refreshCall: () => Promise<{ token: string }>,
  ) {
    this.token = this.storage?.getItem(tokenStorageKey) ?? null;
  }

  getToken(): string | null {
    return this.token;
  }

  claims(): TokenClaims | null {
    return this.token ? decodeToken(this.token) : null;
  }

  onSessionChange(listener: SessionListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  setToken(token: string | null, reason: Parameters<SessionListener>[1] = token ? 'login' : 'logout'): void {
    this.token = token;
    // A session ended here is stored again from its next login on.
    if (!token) this.stored = true;
    if (this.stored) this.write(token);
    for (const listener of this.listeners) listener(token, reason);
  }

  /**
   * Takes the token out of the browser's storage at once, keeping it in this page for the calls that end the session
   * (a logout's, which the server must still accept): a tab closed or left before they answer leaves no one logged in.
   * A refresh meanwhile stays in this page too; the next `setToken(null)` ends the session here.
   */
  unstoreToken(): void {
    this.stored = false;
    this.write(null);
  }

  private write(token: string | null): void {
    try {
      if (token) this.storage?.setItem(tokenStorageKey, token);
      else this.storage?.removeItem(tokenStorageKey);
    } catch {
      // Storage unavailable: the session lasts as long as the page.
    }
  }

  /** Whether the stored token is past its expiry: the app then refreshes it and reloads (spec §4). */
  isTokenExpired(): boolean {
    const claims = this.claims();
    return !!claims && claims.exp * 1000 <= this.now();
  }

  /**
   * Refreshes the token when it expires in under 30 minutes; looks at most once a second, so a burst of requests
   * or of mouse moves costs one check.
   */
  async refreshIfDue(): Promise<void> {
    const now = this.now();
    if (now - this.lastRefreshCheck < TOKEN_REFRESH_CHECK_INTERVAL_MS) {
      if (this.refreshing) await this.refreshing;
      return;
    }
    this.lastRefreshCheck = now;
    const claims = this.claims();
    if (!claims || claims.exp * 1000 - now >= TOKEN_REFRESH_THRESHOLD_MS) return;
    await this.refresh();
  }

  /**
   * Spec §4: a token already expired when the page opens is refreshed, and the page reloaded with the fresh one.
   * Reloads only when a fresh token arrived: after a failed refresh the reloaded page would find the same expired
   * token and reload again, forever. Otherwise the page goes on (a refused refresh has logged out; a failed one keeps
   * the session for the next try).
   */
  async reloadIfExpiredAtStart(reload: () => void): Promise<void> {
    if (this.isTokenExpired() && (await this.refresh()) === 'refreshed') reload();
  }

  /** One refresh at a time; a refused one logs out. */
  refresh(): Promise<RefreshOutcome> {
    this.refreshing ??= (async (): Promise<RefreshOutcome> => {
      try {
        const { token } = await this.refreshCall();
        this.setToken(token, 'refresh');
        return 'refreshed';
      } catch (error) {
        // A network hiccup keeps the session for the next try; an answer that refuses the token ends it.
        if (error instanceof ApiError && error.kind === 'http' && error.status < 500) {
          this.setToken(null, 'expired');
          return 'ended';
        }
        return this.token === null ? 'ended' : 'kept';
      } finally {
        this.refreshing = null;
      }
    })();
    return this.refreshing;
  }
}

export function safeLocalStorage(): Storage | null {
  try {
    return typeof localStorage === 'undefined' ? null : localStorage;
  } catch {
    return null;
  }
}
