import type { ResponseCode, ValidationMap } from '@homing/contracts';

// Product spec §9: the client's limits and timings.
export const API_BASE = '/api/v1';
export const REQUEST_TIMEOUT_MS = 10_000;
export const RATE_LIMIT_POOL = 25;
export const RATE_LIMIT_REFILL_MS = 500;
export const MAX_RETRIES = 4;
export const RETRY_DELAY_MS = 1000;
export const TOKEN_REFRESH_THRESHOLD_MS = 30 * 60 * 1000;
export const TOKEN_REFRESH_CHECK_INTERVAL_MS = 1000;
export const CLIENT_RATE_LIMIT_MESSAGE = 'Too many requests (rate limit exceeded).';

// WARNING: persisted in users' browsers; renaming it logs everyone out.
export const tokenStorageKey = 'homing.token';

const IDEMPOTENT_METHODS = new Set(['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS']);
// Calls that start or refresh a session: their 401 is an answer about credentials, not about the held token.
const SESSION_PATHS = /^\/(auth\/|user\/login|magic-link)/;

export type ApiErrorKind = 'http' | 'network' | 'timeout' | 'rate-limited';

/** Every failure of a call, whatever its cause; `errorText` (error-catalogue.ts) turns it into words. */
export class ApiError extends Error {
  constructor(
    readonly kind: ApiErrorKind,
    message: string,
    readonly status = 0,
    readonly code?: ResponseCode | string,
    readonly validation?: ValidationMap,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export interface RequestOptions {
  body?: unknown;
  query?: Record<string, string | number | undefined>;
  /** Makes a POST safe to retry: the gateway answers a repeated key with the first answer. */
  idempotencyKey?: string;
  /** `text` for answers that are not JSON (the base64 QR image). */
  responseType?: 'json' | 'text';
  /** The website paths (`/qr`, `/lang`) live outside `/api/v1`. */
  base?: string;
  /** Extra headers, such as a finder's `X-Finder-Token`. */
  headers?: Record<string, string>;
}

export interface ApiClientOptions {
  fetch?: typeof fetch;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
  /** 0 ≤ x < 1; the retry jitter. */
  random?: () => number;
  storage?: Pick<Storage, 'getItem' | 'setItem' | 'removeItem'> | null;
  /** The interface language, sent on every call. */
  language?: () => string;
  timeoutMs?: number;
}

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
 * The one way the web app talks to the gateway: base URL, timeout, bearer token, language header, the client's
 * own rate limit, retries, and keeping the token fresh.
 */
export class ApiClient {
  private readonly fetchImpl: typeof fetch;
  private readonly now: () => number;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly random: () => number;
  private readonly storage: ApiClientOptions['storage'];
  private readonly language: () => string;
  private readonly timeoutMs: number;

  private tokens = RATE_LIMIT_POOL;
  private tokensCountedAt: number;
  private token: string | null;
  private lastRefreshCheck = -Infinity;
  private refreshing: Promise<RefreshOutcome> | null = null;
  private readonly listeners = new Set<SessionListener>();

  constructor(options: ApiClientOptions = {}) {
    this.fetchImpl = options.fetch ?? ((...args) => globalThis.fetch(...args));
    this.now = options.now ?? Date.now;
    this.sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
    this.random = options.random ?? Math.random;
    this.storage = options.storage === undefined ? safeLocalStorage() : options.storage;
    this.language = options.language ?? (() => 'en');
    this.timeoutMs = options.timeoutMs ?? REQUEST_TIMEOUT_MS;
    this.tokensCountedAt = this.now();
    this.token = this.storage?.getItem(tokenStorageKey) ?? null;
  }

  get(path: string, options?: RequestOptions) {
    return this.request<unknown>('GET', path, options);
  }

  async request<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
    const sessionCall = this.token !== null && !SESSION_PATHS.test(path);
    if (sessionCall) await this.refreshIfDue();
    try {
      return await this.withRetries<T>(method, path, options);
    } catch (error) {
      // A 401 with a token means the server no longer takes it (revoked, expired early): one refresh decides
      // between a second try and logging out.
      if (!sessionCall || !(error instanceof ApiError) || error.status !== 401 || !this.token) throw error;
      if ((await this.refresh()) === 'ended') throw error;
      return this.withRetries<T>(method, path, options);
    }
  }

  private async withRetries<T>(method: string, path: string, options: RequestOptions): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.attempt<T>(method, path, options);
      } catch (error) {
        if (!(error instanceof ApiError) || attempt >= MAX_RETRIES || !this.isRetryable(method, options, error)) throw error;
        // About a second, with 1–100 ms of jitter so clients that failed together do not retry together.
        await this.sleep(RETRY_DELAY_MS + 1 + Math.floor(this.random() * 100));
      }
    }
  }

  // Network errors, 5xx and 429 are retried only where repeating the call cannot do a thing twice.
  private isRetryable(method: string, options: RequestOptions, error: ApiError): boolean {
    const repeatable = IDEMPOTENT_METHODS.has(method) || options.idempotencyKey !== undefined;
    const transient = error.kind === 'network' || error.kind === 'timeout' || error.status >= 500 || error.status === 429;
    return repeatable && transient;
  }

  private takeRateLimitToken(): boolean {
    const now = this.now();
    const refilled = Math.floor((now - this.tokensCountedAt) / RATE_LIMIT_REFILL_MS);
    if (refilled > 0) {
      this.tokens = Math.min(RATE_LIMIT_POOL, this.tokens + refilled);
      this.tokensCountedAt = this.tokens === RATE_LIMIT_POOL ? now : this.tokensCountedAt + refilled * RATE_LIMIT_REFILL_MS;
    }
    if (this.tokens === 0) return false;
    this.tokens -= 1;
    return true;
  }

  private async attempt<T>(method: string, path: string, options: RequestOptions): Promise<T> {
    if (!this.takeRateLimitToken()) throw new ApiError('rate-limited', CLIENT_RATE_LIMIT_MESSAGE);
    const url = new URL(`${options.base ?? API_BASE}${path}`, 'http://placeholder');
    for (const [name, value] of Object.entries(options.query ?? {})) if (value !== undefined) url.searchParams.set(name, String(value));
    // X-Language, not Accept-Language: the gateway prefers it, and the browser's own Accept-Language stays intact
    // for /lang, which reports it.
    const headers = this.headersFor(options.headers);
    if (options.body !== undefined) headers['Content-Type'] = 'application/json';
    if (options.idempotencyKey) headers['Idempotency-Key'] = options.idempotencyKey;

    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, this.timeoutMs);
    let response: Response;
    try {
      response = await this.fetchImpl(url.pathname + url.search, {
        method,
        headers,
        body: options.body === undefined ? undefined : JSON.stringify(options.body),
        signal: controller.signal,
      });
    } catch (error) {
      if (timedOut) throw new ApiError('timeout', `${method} ${path} took longer than ${this.timeoutMs} ms`);
      throw new ApiError('network', error instanceof Error ? error.message : String(error));
    } finally {
      clearTimeout(timer);
    }
    if (!response.ok) throw await errorOf(response);
    if (response.status === 204) return undefined as T;
    const text = await response.text();
    if (options.responseType === 'text') return text as T;
    return (text ? JSON.parse(text) : undefined) as T;
  }

  private headersFor(extra: Record<string, string> = {}): Record<string, string> {
    const headers: Record<string, string> = { 'X-Language': this.language(), ...extra };
    if (this.token) headers.Authorization = `Bearer ${this.token}`;
    return headers;
  }

  /**
   * Opens a long-lived answer (server-sent events) with the same credentials as every call, in headers: no timeout,
   * no retries (the reader reconnects), no rate-limit token (one stream per page). Resolves to the response, whose
   * body the caller reads; failures are ApiErrors as with `request`.
   */
  async openStream(path: string, options: { headers?: Record<string, string>; signal?: AbortSignal } = {}): Promise<Response> {
    if (this.token) await this.refreshIfDue();
    let response: Response;
    try {
      response = await this.fetchImpl(`${API_BASE}${path}`, {
        headers: { Accept: 'text/event-stream', ...this.headersFor(options.headers) },
        signal: options.signal,
      });
    } catch (error) {
      throw new ApiError('network', error instanceof Error ? error.message : String(error));
    }
    if (!response.ok) throw await errorOf(response);
    return response;
  }

  // Session: the token, its refresh, and who wants to know.

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
    try {
      if (token) this.storage?.setItem(tokenStorageKey, token);
      else this.storage?.removeItem(tokenStorageKey);
    } catch {
      // Storage unavailable: the session lasts as long as the page.
    }
    for (const listener of this.listeners) listener(token, reason);
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
        const { token } = await this.attempt<{ token: string }>('POST', '/auth/refresh-token', {});
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

async function errorOf(response: Response): Promise<ApiError> {
  let body: { response_code?: string; message?: string; validation?: ValidationMap } = {};
  try {
    body = (await response.json()) as typeof body;
  } catch {
    // Not our JSON (a proxy's error page): the status says enough.
  }
  return new ApiError('http', body.message ?? `HTTP ${response.status}`, response.status, body.response_code, body.validation);
}

function safeLocalStorage(): Storage | null {
  try {
    return typeof localStorage === 'undefined' ? null : localStorage;
  } catch {
    return null;
  }
}
