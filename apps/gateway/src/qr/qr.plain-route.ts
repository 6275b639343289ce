import { Injectable } from '@nestjs/common';
import { qrQuerySchema, ResponseCode, type QrQuery } from '@homing/contracts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AuthenticatedRequest } from '../auth/authenticated-user';
import { sendTagged } from '../http/etag';
import { ApiError } from '../http/http-error';
import { LocalRateLimit } from '../http/local-rate-limit';
import { answerError, type PlainHandler } from '../http/plain-handlers';
import { RATE_LIMITS } from '../http/rate-limits';
import { ZodBodyPipe } from '../http/zod-body.pipe';
import { UnknownCodeLimiter } from '../items/unknown-code-limit';
import { QrService } from './qr.service';

const queryPipe = new ZodBodyPipe(qrQuerySchema);
// What the schema makes of no query at all (the default size, SVG): most images are asked for so.
const NO_QUERY: QrQuery = Object.freeze(qrQuerySchema.parse({}));

/**
 * `GET /qr/{code}`, the public QR image, as a plain Fastify handler (servePlainHandlers; the contract is
 * `QrHttpController.qr`'s). An image costs no Redis round trip: the general limit (RATE_LIMITS.default per client
 * address) is counted in this replica's memory, the code's existence comes from the scan cache when it knows the
 * code, and the rendered image from the render cache.
 */
@Injectable()
export class QrPlainRoute {
  private readonly rateLimit = new LocalRateLimit(RATE_LIMITS.default.limit, RATE_LIMITS.default.ttl);

  constructor(
    private readonly qr: QrService,
    private readonly unknownCodes: UnknownCodeLimiter,
  ) {}

  readonly handle: PlainHandler = (request, reply) => {
    (request as AuthenticatedRequest).publicRoute = true;
    try {
      const waitSeconds = this.rateLimit.take(request.ip);
      if (waitSeconds > 0) {
        void reply.header('retry-after', String(waitSeconds));
        throw new ApiError(429, ResponseCode.RATE_LIMITED);
      }
      const query = request.url.includes('?') ? queryPipe.transform(request.query) : NO_QUERY;
      const code = (request.params as { code: string }).code;
      // A known code's image rendered already (most requests: a page shows the same tags again and again) is sent
      // at once, without a promise, its header block made once (PrebuiltAnswer).
      const known = this.qr.knownPublicImage(code, query.sizeInPx, query.b64 === '1');
      if (!known) return this.renderAndSend(request, reply, code, query);
      known.send(request, reply);
      return undefined;
    } catch (error) {
      return answerError(request, reply, error, this.unknownCodes);
    }
  };

  private async renderAndSend(request: FastifyRequest, reply: FastifyReply, code: string, query: QrQuery): Promise<FastifyReply> {
    try {
      sendTagged(reply, request.headers['if-none-match'], await this.qr.publicImage(code, query.sizeInPx, query.b64 === '1'));
      return reply;
    } catch (error) {
      return answerError(request, reply, error, this.unknownCodes);
    }
  }
}
