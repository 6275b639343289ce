import type { ResponseCode, ValidationMap } from '@homing/contracts';

// Product spec §9: the client's limits and timings.
export const API_BASE = '/api/v1';
export const REQUEST_TIMEOUT_MS = 10_000;
export const RATE_LIMIT_POOL = 25;
export const RATE_LIMIT_REFILL_MS = 500;
export const MAX_RETRIES = 4;
export const RETRY_DELAY_MS = 1000;
export const CLIENT_RATE_LIMIT_MESSAGE = 'Too many requests (rate limit exceeded).';

const IDEMPOTENT_METHODS = new Set(['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS']);

export type ApiErrorKind = 'http' | 'network' | 'timeout' | 'rate-limited';

/** Every failure of a call, whatever its cause; `errorText` (error-catalogue.ts) turns it into words. */
export class ApiError extends Error {
  constructor(
    readonly kind: ApiErrorKind,
    message: string,
    readonly status = 0,
    readonly code?: ResponseCode | string,
    readonly validation?: ValidationMap,
    /** The gateway's `Retry-After` in seconds (a 429 or 503), when it sent one. */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** The gateway answered 404: no such item, tag or page. */
export function isNotFound(error: unknown): boolean {
  return error instanceof ApiError && error.status === 404;
}

export interface RequestOptions {
  body?: unknown;
  query?: Record<string, string | number | undefined>;
  /** Makes a POST safe to retry: the gateway answers a repeated key with the first answer. */
  idempotencyKey?: string;
  /** `text` for answers that are not JSON (the base64 QR image); `file` for a download (a `DownloadedFile`). */
  responseType?: 'json' | 'text' | 'file';
  /** Longer than the usual 10 s for answers the server takes a while to build (a printable sheet of many tags). */
  timeoutMs?: number;
  /** The website paths (`/qr`, `/lang`) live outside `/api/v1`. */
  base?: string;
  /** Extra headers, such as a finder's `X-Finder-Token`. */
  headers?: Record<string, string>;
}

/** A file the gateway sent: its bytes, and the name Content-Disposition gave it (null when it gave none). */
export interface DownloadedFile {
  blob: Blob;
  fileName: string | null;
}

/** The file name of a Content-Disposition header: `filename*=UTF-8''…` (RFC 6266) before a plain `filename="…"`. */
export function fileNameOf(contentDisposition: string | null): string | null {
  if (!contentDisposition) return null;
  const extended = /filename\*\s*=\s*(?:UTF-8|utf-8)''([^;\s]+)/.exec(contentDisposition);
  if (extended) {
    try {
      return decodeURIComponent(extended[1]);
    } catch {
      // A broken percent-encoding: fall back to the plain name.
    }
  }
  const plain = /filename\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;\s]+))/.exec(contentDisposition);
  const name = plain ? (plain[1]?.replace(/\\(.)/g, '$1') ?? plain[2]) : null;
  return name?.trim() || null;
}

export interface TransportOptions {
  fetch?: typeof fetch;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
  /** 0 ≤ x < 1; the retry jitter. */
  random?: () => number;
  /** The interface language, sent on every call. */
  language?: () => string;
  timeoutMs?: number;
}

/**
 * How a call reaches the gateway: base URL, timeout, headers (bearer token, language), the error envelope, the
 * client's own rate limit and retries. Knows the token only as the session hands it over.
 */
export class ApiTransport {
  private readonly fetchImpl: typeof fetch;
  private readonly now: () => number;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly random: () => number;
  private readonly language: () => string;
  private readonly timeoutMs: number;

  private tokens = RATE_LIMIT_POOL;
  private tokensCountedAt: number;

  constructor(
    options: TransportOptions,
    private readonly bearerToken: () => string | null,
  ) {
    this.fetchImpl = options.fetch ?? ((...args) => globalThis.fetch(...args));
    this.now = options.now ?? Date.now;
    this.sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
    this.random = options.random ?? Math.random;
    this.language = options.language ?? (() => 'en');
    this.timeoutMs = options.timeoutMs ?? REQUEST_TIMEOUT_MS;
    this.tokensCountedAt = this.now();
  }

  async withRetries<T>(method: string, path: string, options: RequestOptions): Promise<T> {
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

  // Network errors, 5xx and 429 are retried only where repeating the call cannot do a thing twice; a 429 only when
  // the gateway asks for no longer a wait than the retry's (a spent e-mail budget says a minute or more).
  private isRetryable(method: string, options: RequestOptions, error: ApiError): boolean {
    const repeatable = IDEMPOTENT_METHODS.has(method) || options.idempotencyKey !== undefined;
    const shortWait = (error.retryAfterSeconds ?? 0) * 1000 <= RETRY_DELAY_MS * 2;
    const transient = error.kind === 'network' || error.kind === 'timeout' || error.status >= 500 || (error.status === 429 && shortWait);
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

  /** One try, no retry. */
  async attempt<T>(method: string, path: string, options: RequestOptions): Promise<T> {
    if (!this.takeRateLimitToken()) throw new ApiError('rate-limited', CLIENT_RATE_LIMIT_MESSAGE);
    const url = new URL(`${options.base ?? API_BASE}${path}`, 'http://placeholder');
    for (const [name, value] of Object.entries(options.query ?? {})) if (value !== undefined) url.searchParams.set(name, String(value));
    // X-Language, not Accept-Language: the gateway prefers it, and the browser's own Accept-Language stays intact
    // for /lang, which reports it.
    const headers = this.headersFor(options.headers);
    if (options.body !== undefined) headers['Content-Type'] = 'application/json';
    if (options.idempotencyKey) headers['Idempotency-Key'] = options.idempotencyKey;

    const timeoutMs = options.timeoutMs ?? this.timeoutMs;
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeoutMs);
    let response: Response;
    try {
      response = await this.fetchImpl(url.pathname + url.search, {
        method,
        headers,
        body: options.body === undefined ? undefined : JSON.stringify(options.body),
        signal: controller.signal,
      });
    } catch (error) {
      if (timedOut) throw new ApiError('timeout', `${method} ${path} took longer than ${timeoutMs} ms`);
      throw new ApiError('network', error instanceof Error ? error.message : String(error));
    } finally {
      clearTimeout(timer);
    }
    if (!response.ok) throw await errorOf(response);
    if (response.status === 204) return undefined as T;
    if (options.responseType === 'file') {
      const file: DownloadedFile = { blob: await response.blob(), fileName: fileNameOf(response.headers.get('Content-Disposition')) };
      return file as T;
    }
    const text = await response.text();
    if (options.responseType === 'text') return text as T;
    return (text ? JSON.parse(text) : undefined) as T;
  }

  private headersFor(extra: Record<string, string> = {}): Record<string, string> {
    const headers: Record<string, string> = { 'X-Language': this.language(), ...extra };
    const token = this.bearerToken();
    if (token) headers.Authorization = `Bearer ${token}`;
    return headers;
  }

  /** A long-lived answer (server-sent events): no timeout, no retries, no rate-limit token (one stream per page). */
  async openStream(path: string, options: { headers?: Record<string, string>; signal?: AbortSignal }): Promise<Response> {
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
}

/** The gateway's error envelope (`{response_code, message, validation}`) as an ApiError. */
async function errorOf(response: Response): Promise<ApiError> {
  let body: { response_code?: string; message?: string; validation?: ValidationMap } = {};
  try {
    body = (await response.json()) as typeof body;
  } catch {
    // Not our JSON (a proxy's error page): the status says enough.
  }
  const retryAfter = Number(response.headers.get('Retry-After') ?? Number.NaN);
  const retryAfterSeconds = Number.isFinite(retryAfter) && retryAfter >= 0 ? retryAfter : undefined;
  return new ApiError('http', body.message ?? `HTTP ${response.status}`, response.status, body.response_code, body.validation, retryAfterSeconds);
}
