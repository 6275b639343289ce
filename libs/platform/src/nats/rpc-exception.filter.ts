import { Catch, type RpcExceptionFilter } from '@nestjs/common';
import { type Observable, throwError } from 'rxjs';

/**
 * Nest's default RPC exception handler replaces every error with `{status: 'error', message: 'Internal server
 * error'}`. This filter hands the original error back, so NatsRpcServer can answer 404, 422 or 503 as meant.
 */
@Catch()
export class RpcErrorPassThroughFilter implements RpcExceptionFilter {
  catch(exception: unknown): Observable<never> {
    return throwError(() => exception);
  }
}
