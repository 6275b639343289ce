import { type CallHandler, type ExecutionContext, Injectable, type NestInterceptor } from '@nestjs/common';
import { catchError, type Observable, throwError } from 'rxjs';

/** A failed query, told without what it carried. */
export class DatabaseQueryError extends Error {
  constructor(
    message: string,
    readonly code: string | undefined,
  ) {
    super(message);
    this.name = 'DatabaseQueryError';
  }
}

/**
 * TypeORM's QueryFailedError carries the query's parameters (e-mail addresses, hashes) and PostgreSQL's `detail`
 * (`Key (lower(email))=(…) already exists`), and an unexpected error is logged whole. Identity's queries are full
 * of personal data, so such an error is replaced by one with PostgreSQL's message and SQLSTATE only (the message
 * names the constraint, never a value; the code still tells "database away" from a bug).
 */
export function scrubQueryError(error: unknown): unknown {
  if (!(error instanceof Error) || !('parameters' in error || 'driverError' in error || 'detail' in error)) return error;
  const code = (error as { code?: unknown }).code;
  return new DatabaseQueryError(error.message, typeof code === 'string' ? code : undefined);
}

@Injectable()
export class QueryErrorScrubber implements NestInterceptor {
  intercept(_context: ExecutionContext, next: CallHandler): Observable<unknown> {
    return next.handle().pipe(catchError((error: unknown) => throwError(() => scrubQueryError(error))));
  }
}
