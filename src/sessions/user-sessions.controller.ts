import { Controller, Delete, Get, Param, ParseUUIDPipe, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { AuthUser, CurrentUser, Roles } from '../auth/auth-user.js';
import { Paginated } from '../common/envelope.js';
import { IdParam } from '../common/id-param.js';
import { fieldError } from '../common/validation.js';
import { ApiEnvelope, ApiErrors } from '../common/openapi.js';
import { PageQueryDto } from '../common/pagination.js';
import { RevokedSessionsDto, SessionResponseDto } from './dto/session.dto.js';
import { SessionsService } from './sessions.service.js';

const SESSION_ID = new ParseUUIDPipe({
  exceptionFactory: () => fieldError('sessionId', 'isUuid', 'sessionId must be a session id (a UUID)'),
});

/** An admin's view of any user's sessions (the back office's customer page). */
@ApiTags('sessions')
@ApiBearerAuth()
@Controller('users/:id/sessions')
@Roles('admin')
export class UserSessionsController {
  constructor(private readonly sessions: SessionsService) {}

  @Get()
  @ApiOperation({
    summary: "List a user's active sessions (admin)",
    description: 'Most recently used first. An unknown or deleted user is 404.',
  })
  @ApiEnvelope(SessionResponseDto, { list: true })
  @ApiErrors(400, 401, 403, 404, 429)
  list(
    @IdParam() userId: number,
    @Query() query: PageQueryDto,
    @CurrentUser() admin: AuthUser,
  ): Promise<Paginated<SessionResponseDto>> {
    return this.sessions.list(admin, query, userId);
  }

  @Delete()
  @ApiOperation({
    summary: "Revoke all of a user's sessions (admin)",
    description:
      'Their access and refresh tokens stop working at once and their WebSocket connections are closed; ' +
      'the account stays active (deactivate it to keep it out). An unknown or deleted user is 404.',
  })
  @ApiEnvelope(RevokedSessionsDto)
  @ApiErrors(400, 401, 403, 404, 429)
  async revokeAll(@IdParam() userId: number): Promise<RevokedSessionsDto> {
    return { revoked: await this.sessions.revokeAllOf(userId) };
  }

  @Delete(':sessionId')
  @ApiParam({ name: 'sessionId', schema: { type: 'string', format: 'uuid' } })
  @ApiOperation({
    summary: "Revoke one of a user's sessions (admin)",
    description: 'A session of another user, like an unknown or already ended one, is 404.',
  })
  @ApiEnvelope(null)
  @ApiErrors(400, 401, 403, 404, 429)
  revoke(@IdParam() userId: number, @Param('sessionId', SESSION_ID) sessionId: string): Promise<void> {
    return this.sessions.revoke(userId, sessionId);
  }
}
