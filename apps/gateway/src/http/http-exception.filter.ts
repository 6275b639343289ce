import { type ArgumentsHost, Catch, type ExceptionFilter, Logger, NotFoundException } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { INTERNAL_ERROR_ANSWER, toHttpError, type HttpErrorAnswer } from './http-error';
import type { WebAppFallback } from '../web/web-app';

/** Every error a route or Nest raises leaves through here, as the contract's body; bugs become a bare 500. */
@Catch()
export class HttpExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger(HttpExceptionFilter.name);

  constructor(private readonly webApp?: WebAppFallback) {}

  catch(error: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const request = http.getRequest<FastifyRequest>();
    const reply = http.getResponse<FastifyReply>();
    // Unknown paths outside the API are pages of the single-page app.
    if (error instanceof NotFoundException && this.webApp?.serves(request)) {
      void this.webApp.sendIndex(reply, request.url);
      return;
    }
    sendHttpError(reply, this.answerFor(error, request));
  }

  private answerFor(error: unknown, request: FastifyRequest): HttpErrorAnswer {
    const answer = toHttpError(error);
    if (answer) return answer;
    this.logger.error({ err: error, url: request.url }, 'unhandled error');
    return INTERNAL_ERROR_ANSWER;
  }
}

export function sendHttpError(reply: FastifyReply, answer: HttpErrorAnswer): void {
  if (reply.sent) return;
  void reply
    .status(answer.status)
    .headers({ ...answer.headers, 'cache-control': 'no-store' })
    .type('application/json; charset=utf-8')
    .send(answer.body);
}
