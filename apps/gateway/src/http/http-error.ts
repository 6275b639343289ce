import type { FastifyReply } from 'fastify';
import { HttpException, HttpStatus } from '@nestjs/common';
import { ResponseCode, type HttpErrorBody, type ValidationMap } from '@homing/contracts';
import { isDependencyUnavailable, RpcError, RpcTimeoutError, RpcUnavailableError } from '@homing/platform';

/** An error answer of the HTTP contract: status, body and the extra headers it needs. */
export interface HttpErrorAnswer {
  status: number;
  body: HttpErrorBody;
  headers?: Record<string, string>;
}

// Seconds a client should wait before retrying when a dependency is down or slow.
const RETRY_AFTER_SECONDS = '5';

const CODE_BY_STATUS: Record<number, ResponseCode> = {
  400: ResponseCode.MALFORMED_REQUEST,
  401: ResponseCode.UNAUTHORIZED,
  403: ResponseCode.FORBIDDEN,
  404: ResponseCode.NOT_FOUND,
  413: ResponseCode.PAYLOAD_TOO_LARGE,
  415: ResponseCode.UNSUPPORTED_MEDIA_TYPE,
  422: ResponseCode.VALIDATION_ERROR,
  429: ResponseCode.RATE_LIMITED,
  503: ResponseCode.SERVICE_UNAVAILABLE,
  504: ResponseCode.SERVICE_TIMEOUT,
};

const MESSAGE_BY_CODE: Partial<Record<ResponseCode, string>> = {
  MALFORMED_REQUEST: 'The request is malformed.',
  UNAUTHORIZED: 'You need to log in first.',
  FORBIDDEN: 'You are not allowed to do this.',
  NOT_FOUND: 'The requested resource was not found on our server.',
  PAYLOAD_TOO_LARGE: 'The request body is too large.',
  UNSUPPORTED_MEDIA_TYPE: 'The request body must be JSON (Content-Type: application/json).',
  VALIDATION_ERROR: 'Input data contains errors.',
  RATE_LIMITED: 'Too many requests. Try again later.',
  SERVICE_UNAVAILABLE: 'A service is temporarily unavailable. Try again shortly.',
  SERVICE_BUSY: 'The service is busy. Try again shortly.',
  SERVICE_TIMEOUT: 'A service took too long to answer. Try again shortly.',
  INTERNAL_ERROR: 'Our server seems to be having some troubles.',
};

/** Thrown by gateway code to answer with a contract error. */
export class ApiError extends HttpException {
  constructor(status: number, code: ResponseCode, message = MESSAGE_BY_CODE[code] ?? code, validation?: ValidationMap) {
    super({ response_code: code, message, ...(validation ? { validation } : {}) } satisfies HttpErrorBody, status);
  }
}

function answer(status: number, code: ResponseCode, message?: string, validation?: ValidationMap): HttpErrorAnswer {
  return { status, body: { response_code: code, message: message ?? MESSAGE_BY_CODE[code] ?? code, ...(validation ? { validation } : {}) } };
}

function isHttpErrorBody(value: unknown): value is HttpErrorBody {
  return typeof value === 'object' && value !== null && typeof (value as HttpErrorBody).response_code === 'string';
}

// Fastify's own errors (raised before a route handler runs) carry a code and a status.
const FASTIFY_CODES: Record<string, ResponseCode> = {
  FST_ERR_CTP_BODY_TOO_LARGE: ResponseCode.PAYLOAD_TOO_LARGE,
  FST_ERR_CTP_INVALID_MEDIA_TYPE: ResponseCode.UNSUPPORTED_MEDIA_TYPE,
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: ResponseCode.MALFORMED_REQUEST,
  FST_ERR_CTP_EMPTY_JSON_BODY: ResponseCode.MALFORMED_REQUEST,
  FST_ERR_CTP_INVALID_JSON_BODY: ResponseCode.MALFORMED_REQUEST,
  FST_ERR_BAD_URL: ResponseCode.MALFORMED_REQUEST,
  FST_ERR_MAX_PARAM_LENGTH: ResponseCode.MALFORMED_REQUEST,
};

// Fastify answers an over-long path parameter with 414; the contract calls any unusable URL malformed.
const STATUS_OVERRIDES: Record<string, number> = { FST_ERR_MAX_PARAM_LENGTH: 400, FST_ERR_BAD_URL: 400 };

/**
 * The one place that turns any error into the HTTP contract (ARCHITECTURE §5). Returns null for errors that are
 * bugs: the caller logs them and answers 500 without details.
 */
export function toHttpError(error: unknown): HttpErrorAnswer | null {
  if (error instanceof RpcError) {
    const { status, retryAfterSeconds, ...body } = error.body;
    // 503 covers a service that is down and one that sheds load (SERVICE_BUSY); either way, retry later.
    // 429: a service past what it can serve now (identity's password hashing), or past a limit it keeps itself (then
    // it says how long).
    const retryAfter = retryAfterSeconds !== undefined ? String(retryAfterSeconds) : RETRY_AFTER_SECONDS;
    return { status, body, ...(status === 429 || status === 503 || status === 504 ? { headers: { 'Retry-After': retryAfter } } : {}) };
  }
  if (error instanceof RpcUnavailableError) {
    return { ...answer(503, ResponseCode.SERVICE_UNAVAILABLE), headers: { 'Retry-After': RETRY_AFTER_SECONDS } };
  }
  if (error instanceof RpcTimeoutError) {
    return { ...answer(504, ResponseCode.SERVICE_TIMEOUT), headers: { 'Retry-After': RETRY_AFTER_SECONDS } };
  }
  // The gateway's own dependency (Redis: rate limits, revoked sessions) is away: retry later, never a 500.
  if (isDependencyUnavailable(error)) {
    return { ...answer(503, ResponseCode.SERVICE_UNAVAILABLE), headers: { 'Retry-After': RETRY_AFTER_SECONDS } };
  }
  if (error instanceof HttpException) {
    const status = error.getStatus();
    const response = error.getResponse();
    if (isHttpErrorBody(response)) return { status, body: response };
    return answer(status, CODE_BY_STATUS[status] ?? (status < 500 ? ResponseCode.MALFORMED_REQUEST : ResponseCode.INTERNAL_ERROR));
  }
  const fastify = error as { code?: unknown; statusCode?: unknown };
  if (typeof fastify.code === 'string' && fastify.code in FASTIFY_CODES) {
    return answer(STATUS_OVERRIDES[fastify.code] ?? (Number(fastify.statusCode) || HttpStatus.BAD_REQUEST), FASTIFY_CODES[fastify.code]);
  }
  // JSON that does not parse, and other client errors Fastify raises with a 4xx status.
  if (error instanceof SyntaxError || (typeof fastify.statusCode === 'number' && fastify.statusCode >= 400 && fastify.statusCode < 500)) {
    const status = typeof fastify.statusCode === 'number' ? fastify.statusCode : 400;
    return answer(status, CODE_BY_STATUS[status] ?? ResponseCode.MALFORMED_REQUEST);
  }
  return null;
}

export const INTERNAL_ERROR_ANSWER: HttpErrorAnswer = answer(500, ResponseCode.INTERNAL_ERROR);

/** Sends an error answer of the contract (unless something was sent already), never cached. */
export function sendHttpError(reply: FastifyReply, answer: HttpErrorAnswer): void {
  if (reply.sent) return;
  void reply
    .status(answer.status)
    .headers({ ...answer.headers, 'cache-control': 'no-store' })
    .type('application/json; charset=utf-8')
    .send(answer.body);
}
