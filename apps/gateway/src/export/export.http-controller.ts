import { Controller, Get, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { userExportSchema, type UserExport } from '@homing/contracts';
import { CurrentUser, type AuthenticatedUser } from '../auth/authenticated-user';
import { ApiRoute, ApiTags } from '../http/api-route.decorator';
import { ExportService, exportFileName } from './export.service';

/** The logged-in owner's data export. */
@ApiTags('user')
@Controller('user')
export class ExportHttpController {
  constructor(private readonly exports: ExportService) {}

  @Get('export')
  @ApiRoute({
    summary: 'Everything kept about the logged-in user, as a JSON file (attachment)',
    description:
      'Account, sessions (no tokens), items, the conversations of the items with their messages (finders by role only), push subscriptions (endpoints shortened) and what was sent (kind and time, no content). 503 when any service does not answer: never a partial file. Not cached.',
    answer: userExportSchema,
  })
  async export(@CurrentUser() user: AuthenticatedUser, @Res({ passthrough: true }) reply: FastifyReply): Promise<UserExport> {
    const file = await this.exports.exportOf(user);
    void reply.header('Content-Disposition', `attachment; filename="${exportFileName(new Date(file.exported_at))}"`).header('Cache-Control', 'no-store');
    return file;
  }
}
