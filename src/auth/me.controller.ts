import { Body, Controller, Get, Put, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiEnvelope, ApiErrors } from '../common/openapi.js';
import { UserResponseDto } from '../users/dto/user-response.dto.js';
import { UserAccounts } from '../users/user-accounts.js';
import { AuthUser, CurrentUser } from './auth-user.js';
import { AuthService } from './auth.service.js';
import { ChangePasswordDto } from './dto/change-password.dto.js';
import { LoginLockGuard } from './login-lock.guard.js';

@ApiTags('auth')
@ApiBearerAuth()
@Controller('me')
export class MeController {
  constructor(
    private readonly users: UserAccounts,
    private readonly auth: AuthService,
  ) {}

  @Get()
  @ApiOperation({ summary: 'The caller’s own account, with phone and address' })
  @ApiEnvelope(UserResponseDto)
  @ApiErrors(401, 429)
  get(@CurrentUser() user: AuthUser): Promise<UserResponseDto> {
    return this.users.get(user.id, user);
  }

  @Put('password')
  @UseGuards(LoginLockGuard)
  @ApiOperation({
    summary: 'Change the caller’s password',
    description:
      'A wrong `current_password` is 401 with the login’s message and counts as a failed login of the account. ' +
      '`new_password` follows the registration rule (8–128). Every other session of the caller is revoked; ' +
      'the current one stays.',
  })
  @ApiEnvelope(null)
  @ApiErrors(400, 401, 429)
  changePassword(@CurrentUser() user: AuthUser, @Body() dto: ChangePasswordDto): Promise<void> {
    return this.auth.changePassword(user, dto);
  }
}
