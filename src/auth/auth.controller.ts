import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiEnvelope, ApiErrors } from '../common/openapi.js';
import { Public } from '../common/public.decorator.js';
import { AuthRateLimit } from '../common/rate-limit.js';
import { UserResponseDto } from '../users/dto/user-response.dto.js';
import { AuthService } from './auth.service.js';
import { LoginDto, LoginResponseDto } from './dto/login.dto.js';
import { RegisterDto } from './dto/register.dto.js';

@ApiTags('auth')
@Public()
@AuthRateLimit()
@Controller()
export class AuthController {
  constructor(private readonly auth: AuthService) {}

  @Post('register')
  @ApiOperation({
    summary: 'Create an account (role user)',
    description:
      'username 3–32 of letters, digits, `_.-`, unique ignoring case; email unique ignoring case; password 8–128. ' +
      'Other fields optional (default ""). Unknown fields such as `role` are refused.',
  })
  @ApiEnvelope(UserResponseDto, { status: 201, description: 'The new user, with phone and address' })
  @ApiErrors(400, 429, { 400: { field: 'username', rule: 'unique', message: 'username is already taken' } })
  register(@Body() dto: RegisterDto): Promise<UserResponseDto> {
    return this.auth.register(dto);
  }

  @Post('login')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Exchange username and password for a bearer token',
    description: 'Unknown user and wrong password give the same 401. The token lifetime is JWT_EXPIRES_IN.',
  })
  @ApiEnvelope(LoginResponseDto, { description: 'Token and user (without phone and address)' })
  @ApiErrors(400, 401, 429, {
    400: { field: 'password', rule: 'isString', message: 'password must be a string' },
    401: 'Invalid username or password',
  })
  login(@Body() dto: LoginDto): Promise<LoginResponseDto> {
    return this.auth.login(dto);
  }
}
