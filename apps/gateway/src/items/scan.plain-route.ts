import { Injectable } from '@nestjs/common';
import { parseTagCode, type PublicItem } from '@homing/contracts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AccessTokens, bearerTokenOf } from '../auth/access-tokens';
import type { AuthenticatedRequest } from '../auth/authenticated-user';
import { answerError, type PlainHandler } from '../http/plain-handlers';
import { prebuiltHead, writeWhole } from '../http/prebuilt-answer';
import { PublicItemsService } from './public-items.service';
import { UnknownCodeLimiter } from './unknown-code-limit';

// The head of every answer from memory: JSON under the API's prefix (so no-store), with the security headers.
const KNOWN_ITEM_HEAD = prebuiltHead({ 'content-type': 'application/json; charset=utf-8' }, true);

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

  readonly handle: PlainHandler = (request, reply): undefined | Promise<PublicItem | typeof reply> => {
    // What the auth guard marks on every public route: its unknown-code 404s are misses.
    (request as AuthenticatedRequest).publicRoute = true;
    // A finder's scan of a tag in memory is answered at once, with the JSON made when the tag was first scanned and a
    // head made at start-up, written straight to the socket (writeWhole); no promise is made (each costs the request
    // context's async hook as well).
    const code = bearerTokenOf(request) === null ? parseTagCode((request.params as { code: string }).code) : null;
    const known = code !== null ? this.publicItems.knownItemJson(code) : undefined;
    if (known === undefined) return this.scan(request, reply);
    writeWhole(request, reply, KNOWN_ITEM_HEAD, known);
    return undefined;
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
