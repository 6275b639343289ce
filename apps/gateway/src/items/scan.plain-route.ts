import { Injectable } from '@nestjs/common';
import type { PublicItem } from '@homing/contracts';
import { AccessTokens } from '../auth/access-tokens';
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

  readonly handle: PlainHandler = async (request, reply): Promise<PublicItem | typeof reply> => {
    // What the auth guard marks on every public route: its unknown-code 404s are misses.
    (request as AuthenticatedRequest).publicRoute = true;
    try {
      const viewer = await this.accessTokens.viewerOf(request);
      return await this.publicItems.scan((request.params as { code: string }).code, viewer?.id ?? null);
    } catch (error) {
      return answerError(request, reply, error, this.unknownCodes);
    }
  };
}
