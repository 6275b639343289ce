import { Controller, Get, Param, Post, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { SCAN_ALERT_MAIL_WINDOW_MINUTES, SCAN_HISTORY_DAYS, SCAN_HISTORY_MAX, scanHistorySchema, type ScanHistory } from '@homing/contracts';
import { CurrentUser, OptionalCurrentUser, type AuthenticatedUser } from '../auth/authenticated-user';
import { ApiRoute, ApiTags } from '../http/api-route.decorator';
import { NOT_YOURS } from '../http/openapi';
import { SCAN_LIMITS } from './scan-limits';
import { requestSiteHeaders } from '../http/from-our-pages';
import { ScansService } from './scans.service';

@ApiTags('items')
@Controller()
export class ScansHttpController {
  constructor(private readonly scans: ScansService) {}

  @Post('items/:code/scans')
  @ApiRoute({
    summary: 'Record a visit of the finder page (sent by the page once it has rendered)',
    description:
      'No body. Keeps the time, the city and country of the client address (offline database) and the kind of device; never the address. ' +
      `While the item is lost, its owner gets a push at once and an e-mail at most every ${SCAN_ALERT_MAIL_WINDOW_MINUTES} minutes. ` +
      'The owner’s own visit records nothing. 404 for an unknown or unclaimed code; 403 from another site’s page (Sec-Fetch-Site, else Origin). ' +
      `Past ${SCAN_LIMITS.perAddressPerTag} scans an hour from one address of one tag, or ${SCAN_LIMITS.perTag} of one tag, 429 with Retry-After.`,
    caller: 'anyone-or-user',
    status: 204,
    errors: [403, 404, 429],
    rateLimit: 'by-route',
  })
  record(
    @Param('code') code: string,
    @OptionalCurrentUser() viewer: AuthenticatedUser | null,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<void> {
    return this.scans.record(code, { address: request.ip, userAgent: request.headers['user-agent'], viewerUserId: viewer?.id ?? null, headers: requestSiteHeaders(request.headers) }, reply);
  }

  @Get('user/items/:code/scans')
  @ApiRoute({
    summary: 'When, roughly where and on what kind of device the item’s tag was scanned',
    description: `The last ${SCAN_HISTORY_DAYS} days, newest first, at most ${SCAN_HISTORY_MAX}. ${NOT_YOURS}`,
    answer: scanHistorySchema,
    errors: [404],
  })
  history(@Param('code') code: string, @CurrentUser() owner: AuthenticatedUser): Promise<ScanHistory> {
    return this.scans.history(owner.id, code);
  }
}
