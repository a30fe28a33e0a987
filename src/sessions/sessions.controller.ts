import { Controller, Delete, Get, Param, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AuthUser, CurrentUser } from '../auth/auth-user.js';
import { Paginated } from '../common/envelope.js';
import { ApiEnvelope, ApiErrors } from '../common/openapi.js';
import { PageQueryDto } from '../common/pagination.js';
import { RevokedSessionsDto, SessionIdParamDto, SessionResponseDto } from './dto/session.dto.js';
import { SessionsService } from './sessions.service.js';

@ApiTags('sessions')
@ApiBearerAuth()
@Controller('sessions')
export class SessionsController {
  constructor(private readonly sessions: SessionsService) {}

  @Get()
  @ApiOperation({
    summary: "List the caller's active sessions",
    description: 'Most recently used first. `current` marks the session of the token making the request.',
  })
  @ApiEnvelope(SessionResponseDto, { list: true })
  @ApiErrors(400, 401, 429)
  list(@Query() query: PageQueryDto, @CurrentUser() user: AuthUser): Promise<Paginated<SessionResponseDto>> {
    return this.sessions.list(user, query);
  }

  @Delete()
  @ApiOperation({
    summary: "Revoke all the caller's sessions but the current one",
    description:
      'Their access and refresh tokens stop working at once; their WebSocket connections are closed. Takes no ' +
      'body: each field sent is 400 rule `whitelistValidation` and nothing is revoked.',
  })
  @ApiEnvelope(RevokedSessionsDto)
  @ApiErrors(400, 401, 429, {
    400: { field: 'except', rule: 'whitelistValidation', message: 'property except should not exist' },
  })
  async revokeOthers(@CurrentUser() user: AuthUser): Promise<RevokedSessionsDto> {
    return { revoked: await this.sessions.revokeOthers(user) };
  }

  @Delete(':id')
  @ApiOperation({
    summary: 'Revoke one of the caller’s sessions',
    description:
      'Another user’s session, like an unknown or already ended one, is 404. The current one may be revoked too.',
  })
  @ApiEnvelope(null)
  @ApiErrors(400, 401, 404, 429)
  revoke(@Param() { id }: SessionIdParamDto, @CurrentUser() user: AuthUser): Promise<void> {
    return this.sessions.revoke(user.id, id);
  }
}
