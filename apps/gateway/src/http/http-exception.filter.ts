import { type ArgumentsHost, Catch, type ExceptionFilter, Logger, NotFoundException } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { INTERNAL_ERROR_ANSWER, sendHttpError, toHttpError, type HttpErrorAnswer } from './http-error';
import { pathOfTarget } from './security-headers';
import type { WebAppFallback } from '../web/web-app';
import type { AuthenticatedRequest } from '../auth/authenticated-user';
import { isMiss, type UnknownCodeLimiter } from '../items/unknown-code-limit';

/** Every error a route or Nest raises leaves through here, as the contract's body; bugs become a bare 500. */
@Catch()
export class HttpExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger(HttpExceptionFilter.name);

  constructor(
    private readonly webApp?: WebAppFallback,
    private readonly unknownCodes?: UnknownCodeLimiter,
  ) {}

  catch(error: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const request = http.getRequest<FastifyRequest>();
    const reply = http.getResponse<FastifyReply>();
    // Unknown paths outside the API are pages of the single-page app.
    if (error instanceof NotFoundException && this.webApp?.serves(request)) {
      void this.webApp.sendIndex(reply, pathOfTarget(request.url));
      return;
    }
    const answer = this.answerFor(error, request);
    // A route with a code that tells strangers whether it exists: each of its unknown-code 404s is a guess, counted
    // before it is answered, so a guesser's next request already meets the count (recordMiss never rejects).
    if (this.unknownCodes && isMiss(request as AuthenticatedRequest, answer)) {
      void this.unknownCodes.recordMiss(request.ip).then(() => sendHttpError(reply, answer));
      return;
    }
    sendHttpError(reply, answer);
  }

  private answerFor(error: unknown, request: FastifyRequest): HttpErrorAnswer {
    const answer = toHttpError(error);
    if (answer) return answer;
    // The route's pattern, never the URL: a path holds tag codes and tokens, a query an e-mail address.
    this.logger.error({ err: error, route: `${request.method} ${request.routeOptions.url ?? '(no route)'}` }, 'unhandled error');
    return INTERNAL_ERROR_ANSWER;
  }
}
