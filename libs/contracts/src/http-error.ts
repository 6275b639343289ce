import type { ResponseCode } from './response-codes';

/** A field's broken rule, as the web client maps it to a message: `required`, `min=N`, `max=N`, `email`, `invalid`. */
export type ValidationRule = 'required' | 'email' | 'invalid' | `min=${number}` | `max=${number}`;

/** Field name → broken rule. */
export type ValidationMap = Record<string, ValidationRule>;

/** The body of every error the HTTP API answers with (ARCHITECTURE §5). */
export interface HttpErrorBody {
  /** Machine-readable code; the client picks its translated message by it. */
  response_code: ResponseCode;
  /** English text for logs and developers; never shown verbatim to users. */
  message: string;
  /** Present on validation errors only. */
  validation?: ValidationMap;
}

/**
 * An error as it travels back over NATS request/reply. `status` is the HTTP status the gateway answers with.
 */
export interface RpcErrorBody extends HttpErrorBody {
  status: number;
  /** With a 429: how long the caller is to wait; the gateway answers it as `Retry-After`, never in the body. */
  retryAfterSeconds?: number;
}
