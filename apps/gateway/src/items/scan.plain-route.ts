import { Injectable } from '@nestjs/common';
import { parseTagCode, type PublicItem } from '@homing/contracts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AccessTokens, bearerTokenOf } from '../auth/access-tokens';
import type { AuthenticatedRequest } from '../auth/authenticated-user';
import { answerError, type PlainHandler } from '../http/plain-handlers';
import { PublicItemsService } from './public-items.service';
import { UnknownCodeLimiter } from './unknown-code-limit';

/**
 * `GET /api/v1/items/{code}`, the finder's scan, as a plain Fastify handler (servePlainHandlers; the contract is
 * `ItemsHttpController.getByCode`'s). The same answer as through Nest: anyone may call, a valid token makes it the
 * owner's view, an invalid one is ignored; unknown and malformed codes are the one 404, counted as misses. An
 * anonymous scan of a cached tag touches neither Redis nor NATS.
 */
@Injectable()
export class ScanPlainRoute {
  constructor(
    private readonly publicItems: PublicItemsService,
    private readonly accessTokens: AccessTokens,
    private readonly unknownCodes: UnknownCodeLimiter,
  ) {}

  readonly handle: PlainHandler = (request, reply): PublicItem | Promise<PublicItem | typeof reply> => {
    // What the auth guard marks on every public route: its unknown-code 404s are misses.
    (request as AuthenticatedRequest).publicRoute = true;
    // A finder's scan of a tag in memory is answered at once: Fastify sends what a handler returns, and no promise is
    // made (each costs the request context's async hook as well).
    const code = bearerTokenOf(request) === null ? parseTagCode((request.params as { code: string }).code) : null;
    return (code !== null ? this.publicItems.knownItem(code) : undefined) ?? this.scan(request, reply);
  };

  private async scan(request: FastifyRequest, reply: FastifyReply): Promise<PublicItem | FastifyReply> {
    try {
      const viewer = await this.accessTokens.viewerOf(request);
      return await this.publicItems.scan((request.params as { code: string }).code, viewer?.id ?? null);
    } catch (error) {
      return answerError(request, reply, error, this.unknownCodes);
    }
  }
}
