import { ResponseCode, type RpcErrorBody, type ValidationMap } from '@homing/contracts';

/** A refusal a service sends back over RPC; the gateway answers with its status and body unchanged. */
export class RpcError extends Error {
  constructor(readonly body: RpcErrorBody) {
    super(body.message);
    this.name = 'RpcError';
  }

  static notFound(code: ResponseCode, message: string): RpcError {
    return new RpcError({ status: 404, response_code: code, message });
  }

  static conflict(code: ResponseCode, message: string): RpcError {
    return new RpcError({ status: 409, response_code: code, message });
  }

  static forbidden(code: ResponseCode, message: string): RpcError {
    return new RpcError({ status: 403, response_code: code, message });
  }

  static validation(validation: ValidationMap, message = 'Input data contains errors.'): RpcError {
    return new RpcError({ status: 422, response_code: ResponseCode.VALIDATION_ERROR, message, validation });
  }
}

/** The service did not answer in time: the gateway answers 504. */
export class RpcTimeoutError extends Error {
  constructor(readonly subject: string) {
    super(`no answer on ${subject} in time`);
    this.name = 'RpcTimeoutError';
  }
}

/** No instance of the service is listening, or NATS itself is away: the gateway answers 503. */
export class RpcUnavailableError extends Error {
  constructor(readonly subject: string, cause?: unknown) {
    super(`no service answers on ${subject}`, { cause });
    this.name = 'RpcUnavailableError';
  }
}

// PostgreSQL error classes that mean "the database is away or overloaded", not "your input is wrong".
const UNAVAILABLE_SQLSTATES = new Set(['57P01', '57P02', '57P03', '57014', '08000', '08001', '08003', '08004', '08006', '53300']);
const UNAVAILABLE_ERRNOS = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH']);
// ioredis without an offline queue: "Stream isn't writeable and enableOfflineQueue options is false".
const UNAVAILABLE_MESSAGES = /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Connection is closed|Stream isn't writeable/i;

/** True when an error means a dependency is down (answer 503 and let the caller retry) rather than a bug. */
export function isDependencyUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  // Another service that is away or too slow (or a request whose deadline passed) is a dependency, like the database.
  if (error instanceof RpcUnavailableError || error instanceof RpcTimeoutError) return true;
  const code = (error as { code?: unknown }).code ?? (error as { driverError?: { code?: unknown } }).driverError?.code;
  if (typeof code === 'string' && (UNAVAILABLE_SQLSTATES.has(code) || UNAVAILABLE_ERRNOS.has(code))) return true;
  if (UNAVAILABLE_MESSAGES.test(error.message)) return true;
  return error.cause !== undefined && error.cause !== error && isDependencyUnavailable(error.cause);
}
