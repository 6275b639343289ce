import type { ResponseCode } from '@homing/contracts';

import { ApiError, ApiTransport, type RequestOptions, type TransportOptions } from './api-transport';
import { ApiSession, safeLocalStorage, type RefreshOutcome, type SessionListener, type TokenClaims, type TokenStorage } from './api-session';

// Calls that start or refresh a session: their 401 is an answer about credentials, not about the held token.
const SESSION_PATHS = /^\/(auth\/|user\/login|magic-link)/;

export interface ApiClientOptions extends TransportOptions {
  storage?: TokenStorage | null;
}

/**
 * The one way the web app talks to the gateway: the transport (api-transport.ts: base URL, timeout, headers, the
 * client's own rate limit, retries) with the session (api-session.ts: the token, kept fresh).
 */
export class ApiClient {
  private readonly transport: ApiTransport;
  private readonly session: ApiSession;

  constructor(options: ApiClientOptions = {}) {
    this.transport = new ApiTransport(options, () => this.session.getToken());
    this.session = new ApiSession(options.storage === undefined ? safeLocalStorage() : options.storage, options.now ?? Date.now, () =>
      this.transport.attempt<{ token: string }>('POST', '/auth/refresh-token', {}),
    );
  }

  get(path: string, options?: RequestOptions) {
    return this.request<unknown>('GET', path, options);
  }

  async request<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
    const sessionCall = this.session.getToken() !== null && !SESSION_PATHS.test(path);
    if (sessionCall) await this.session.refreshIfDue();
    try {
      return await this.transport.withRetries<T>(method, path, options);
    } catch (error) {
      // A 401 with a token means the server no longer takes it (revoked, expired early): one refresh decides
      // between a second try and logging out. Not for INVALID_CREDENTIALS: that is about a password or code in the
      // body (deleting the account), and a second try would count as a second failed log-in. (A type-only import: the
      // contracts' schemas stay out of the finder page's first bundle.)
      if (!sessionCall || !(error instanceof ApiError) || error.status !== 401 || error.code === ('INVALID_CREDENTIALS' satisfies ResponseCode) || !this.session.getToken()) throw error;
      if ((await this.session.refresh()) === 'ended') throw error;
      return this.transport.withRetries<T>(method, path, options);
    }
  }

  /**
   * Opens a long-lived answer (server-sent events) with the same credentials as every call, in headers: no timeout,
   * no retries (the reader reconnects), no rate-limit token (one stream per page). Resolves to the response, whose
   * body the caller reads; failures are ApiErrors as with `request`.
   */
  async openStream(path: string, options: { headers?: Record<string, string>; signal?: AbortSignal } = {}): Promise<Response> {
    if (this.session.getToken()) await this.session.refreshIfDue();
    return this.transport.openStream(path, options);
  }

  // Session: the token, its refresh, and who wants to know.

  getToken(): string | null {
    return this.session.getToken();
  }

  claims(): TokenClaims | null {
    return this.session.claims();
  }

  onSessionChange(listener: SessionListener): () => void {
    return this.session.onSessionChange(listener);
  }

  setToken(token: string | null, reason?: Parameters<SessionListener>[1]): void {
    this.session.setToken(token, reason);
  }

  unstoreToken(): void {
    this.session.unstoreToken();
  }

  isTokenExpired(): boolean {
    return this.session.isTokenExpired();
  }

  refreshIfDue(): Promise<void> {
    return this.session.refreshIfDue();
  }

  reloadIfExpiredAtStart(reload: () => void): Promise<void> {
    return this.session.reloadIfExpiredAtStart(reload);
  }

  refresh(): Promise<RefreshOutcome> {
    return this.session.refresh();
  }
}
