import { Body, Controller, Get, HttpCode, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiOkResponse, ApiOperation, ApiQuery, ApiResponse, ApiTags } from '@nestjs/swagger';
import { z } from 'zod';
import { languageBodySchema, ResponseCode, userSchema, visibleUserSchema, type LanguageBody, type User } from '@homing/contracts';
import { RpcClient } from '@homing/platform';
import { CurrentUser, type AuthenticatedUser } from '../auth/authenticated-user';
import { ApiError } from '../http/http-error';
import { errorResponses, jsonSchemaOf } from '../http/openapi';
import { ZodBodyPipe } from '../http/zod-body.pipe';

// Enough for any page of a client; more is an attempt to make the gateway do work for nothing.
const MAX_IDS = 100;
const idsSchema = z.array(z.uuid()).min(1).max(MAX_IDS);

/** The logged-in user's own account. */
@ApiTags('user')
@ApiBearerAuth()
@ApiResponse(errorResponses[401])
@Controller('user')
export class UsersHttpController {
  constructor(private readonly rpc: RpcClient) {}

  @Get('me')
  @ApiOperation({ summary: 'The logged-in user: id, e-mail and language' })
  @ApiOkResponse({ schema: jsonSchemaOf(userSchema) })
  me(@CurrentUser() user: AuthenticatedUser): Promise<User> {
    return this.rpc.request('identity.rpc.get-user', { userId: user.id });
  }

  @Post('language')
  @HttpCode(200)
  @ApiOperation({ summary: 'Set the language of the interface and of the e-mails (en, nl, es)' })
  @ApiBody({ schema: jsonSchemaOf(languageBodySchema) })
  @ApiOkResponse({ schema: jsonSchemaOf(userSchema) })
  @ApiResponse(errorResponses[422])
  setLanguage(@Body(new ZodBodyPipe(languageBodySchema)) body: LanguageBody, @CurrentUser() user: AuthenticatedUser): Promise<User> {
    return this.rpc.request('identity.rpc.set-language', { userId: user.id, language: body.language });
  }

  @Get('many')
  @ApiOperation({ summary: 'Users by id (comma-separated `ids`)', description: 'Only the caller is shown with an e-mail and language; anyone else by id only.' })
  @ApiQuery({ name: 'ids', required: true, description: 'Comma-separated user ids, at most 100' })
  @ApiOkResponse({ schema: jsonSchemaOf(z.array(visibleUserSchema)) })
  @ApiResponse(errorResponses[422])
  async many(@Query('ids') ids: unknown, @CurrentUser() user: AuthenticatedUser): Promise<Array<z.infer<typeof visibleUserSchema>>> {
    const parsed = idsSchema.safeParse(typeof ids === 'string' ? [...new Set(ids.split(',').map((id) => id.trim()).filter(Boolean))] : undefined);
    if (!parsed.success) throw new ApiError(422, ResponseCode.VALIDATION_ERROR, undefined, { ids: typeof ids === 'string' && ids ? 'invalid' : 'required' });
    const self = parsed.data.includes(user.id) ? await this.rpc.request('identity.rpc.get-user', { userId: user.id }) : null;
    return parsed.data.map((id) => (id === user.id && self ? self : { id }));
  }
}
