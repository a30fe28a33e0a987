import {
  Body,
  Controller,
  Get,
  HttpCode,
  Post,
  Req,
  Res,
  UnauthorizedException,
  UseGuards,
} from '@nestjs/common';
import type { Request, Response } from 'express';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiEnvelope, ApiErrors } from '../common/openapi.js';
import { fieldError } from '../common/validation.js';
import { Public } from '../common/public.decorator.js';
import { AuthRateLimit, MailRateLimit } from '../common/rate-limit.js';
import type { ClientInfo } from '../sessions/user-sessions.js';
import { UserResponseDto } from '../users/dto/user-response.dto.js';
import { AuthUser, CurrentUser, RequestClient } from './auth-user.js';
import { AccountTokensService } from './account-tokens.service.js';
import { CookieSessions } from './cookie-sessions.js';
import { AuthService, EMAIL_NOT_VERIFIED } from './auth.service.js';
import { AccountEmailDto, ConfirmPasswordResetDto, TokenDto } from './dto/account-tokens.dto.js';
import { CsrfTokenDto, LoginDto, LoginResponseDto, RefreshDto, TokensDto } from './dto/login.dto.js';
import { RegisterDto } from './dto/register.dto.js';
import { LoginLockGuard } from './login-lock.guard.js';

@ApiTags('auth')
@Controller()
export class AuthController {
  constructor(
    private readonly auth: AuthService,
    private readonly accountTokens: AccountTokensService,
    private readonly cookies: CookieSessions,
  ) {}

  @Post('register')
  @Public()
  @AuthRateLimit()
  @ApiOperation({
    summary: 'Create an account (role user)',
    description:
      'username 3–32 of letters, digits, `_.-`, unique ignoring case; email unique ignoring case; password 8–128. ' +
      'Other fields optional (default ""). Unknown fields such as `role` are refused. In cookie mode ' +
      '(`X-Session: cookie`) it also signs in, as a login would, unless REQUIRE_VERIFIED_EMAIL=true: the session ' +
      "is in cookies and the answer adds `csrf_token`, `expires_in` and `refresh_expires_in` to the user's fields.",
  })
  @ApiEnvelope(UserResponseDto, { status: 201, description: 'The new user, with phone and address' })
  @ApiErrors(400, 403, 429, {
    400: { field: 'username', rule: 'unique', message: 'username is already taken' },
    403: 'Cross-site request refused: its origin is not in CORS_ORIGINS',
  })
  register(
    @Body() dto: RegisterDto,
    @RequestClient() client: ClientInfo,
    @Req() request: Request,
  ): Promise<UserResponseDto> {
    return this.auth.register(dto, this.cookies.wantsCookies(request) ? client : undefined);
  }

  @Post('login')
  @Public()
  @AuthRateLimit()
  @UseGuards(LoginLockGuard)
  @HttpCode(200)
  @ApiOperation({
    summary: 'Exchange username and password for a session: access token, refresh token and user',
    description:
      'Unknown user and wrong password give the same 401. The access token lives `expires_in` seconds ' +
      '(JWT_EXPIRES_IN); the refresh token renews it at POST /auth/refresh. After LOGIN_MAX_FAILURES failures ' +
      'for one username within LOGIN_FAILURE_WINDOW, from any address, that username gets 429 with ' +
      'Retry-After until the window ends (unknown usernames alike). With REQUIRE_VERIFIED_EMAIL=true an account ' +
      'whose e-mail address is not verified gets 403 (after its password was checked). In cookie mode ' +
      '(`X-Session: cookie`) the tokens go into HttpOnly cookies instead of the answer, which carries ' +
      '`csrf_token` (docs/api.md#cookie-sessions).',
  })
  @ApiEnvelope(LoginResponseDto, { description: 'Tokens and user (without phone and address)' })
  @ApiErrors(400, 401, 403, 429, {
    400: { field: 'password', rule: 'isString', message: 'password must be a string' },
    401: 'Invalid username or password',
    403: EMAIL_NOT_VERIFIED,
  })
  login(@Body() dto: LoginDto, @RequestClient() client: ClientInfo): Promise<LoginResponseDto> {
    return this.auth.login(dto, client);
  }

  @Post('auth/refresh')
  @Public()
  @HttpCode(200)
  @ApiOperation({
    summary: 'Exchange a refresh token for a new access token and a new refresh token',
    description:
      'No bearer token. Each refresh token works once (rotation) and renews the session for REFRESH_TOKEN_TTL. ' +
      'A refresh token the session issued and already exchanged revokes its whole session (theft detection); ' +
      'of two concurrent refreshes with the same token, one succeeds and the other counts as such a reuse. ' +
      'A secret the session never issued is 401 and changes nothing. Expired, revoked or unknown tokens: 401. ' +
      'In cookie mode (`X-Session: cookie`) the refresh cookie is exchanged (body `{}`, X-CSRF-Token required) ' +
      'and the new tokens go into the cookies; a refused one clears them.',
  })
  @ApiEnvelope(TokensDto)
  @ApiErrors(400, 401, 403, 429, {
    403: 'CSRF token missing or invalid: send the X-CSRF-Token header (GET /auth/csrf answers it)',
  })
  async refresh(
    @Body() dto: RefreshDto,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<TokensDto> {
    const token = dto.refresh_token ?? this.cookies.refreshTokenOf(request);
    if (token === undefined) {
      throw fieldError(
        'refresh_token',
        'isString',
        'refresh_token must be a string (or a refresh cookie sent)',
      );
    }
    try {
      return await this.auth.refresh(token);
    } catch (error) {
      if (error instanceof UnauthorizedException) this.cookies.clearSession(request, response);
      throw error;
    }
  }

  @Get('auth/csrf')
  @Public()
  @ApiOperation({
    summary: "The CSRF token of the request's cookies (cookie sessions)",
    description:
      'For a browser page that has lost the token an answer gave (a reload): every unsafe call that a cookie ' +
      "authenticates sends it as X-CSRF-Token. Only scripts of the service's origin or of CORS_ORIGINS can read " +
      'the answer.',
  })
  @ApiEnvelope(CsrfTokenDto)
  @ApiErrors(429)
  csrf(@Req() request: Request): CsrfTokenDto {
    return { csrf_token: this.cookies.csrfTokenOf(request) };
  }

  @Post('logout')
  @HttpCode(200)
  @ApiBearerAuth()
  @ApiOperation({
    summary: "Revoke the caller's session",
    description:
      'Its access token stops working at once (401), its refresh token too, and its WebSocket connections are ' +
      'closed. Takes no body: each field sent is 400 rule `whitelistValidation` and the session stays. The ' +
      "session's cookies (cookie mode) are cleared.",
  })
  @ApiEnvelope(null)
  @ApiErrors(400, 401, 429, {
    400: { field: 'all', rule: 'whitelistValidation', message: 'property all should not exist' },
  })
  async logout(
    @CurrentUser() user: AuthUser,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<void> {
    await this.auth.logout(user);
    this.cookies.clearSession(request, response);
  }

  @Post('auth/password-reset')
  @Public()
  @MailRateLimit()
  @HttpCode(200)
  @ApiOperation({
    summary: 'Ask for a password reset e-mail',
    description:
      'Answers 200 with `data: null` whether or not an active account has this address, in the same time: the ' +
      'e-mail (a link with a one-time token valid PASSWORD_RESET_TTL) is sent in the background, to known ' +
      'addresses only. A new request makes the older tokens of the account stop working. Rate limited per ' +
      'client by THROTTLE_MAIL_LIMIT per THROTTLE_TTL_MS.',
  })
  @ApiEnvelope(null)
  @ApiErrors(400, 429, {
    400: { field: 'email', rule: 'isEmail', message: 'email must be a valid email address' },
  })
  requestPasswordReset(@Body() dto: AccountEmailDto): Promise<void> {
    return this.accountTokens.requestPasswordReset(dto.email);
  }

  @Post('auth/password-reset/confirm')
  @Public()
  @AuthRateLimit()
  @HttpCode(200)
  @ApiOperation({
    summary: 'Set a new password with the token of the password reset e-mail',
    description:
      "The password follows registration's rules. The token works once; every session of the account is " +
      'revoked (its tokens stop working, its WebSocket connections are closed), and the e-mail address counts ' +
      "as verified; this browser's session cookies are cleared. An unknown, used or expired token: 400 naming " +
      '`token`.',
  })
  @ApiEnvelope(null)
  @ApiErrors(400, 429, {
    400: { field: 'token', rule: 'valid', message: 'token is unknown, used or expired' },
  })
  async confirmPasswordReset(
    @Body() dto: ConfirmPasswordResetDto,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<void> {
    await this.accountTokens.confirmPasswordReset(dto);
    this.cookies.clearSession(request, response);
  }

  @Post('auth/verify-email')
  @Public()
  @AuthRateLimit()
  @HttpCode(200)
  @ApiOperation({
    summary: 'Verify the e-mail address with the token of the verification e-mail',
    description:
      'The e-mail is sent at registration; its token works once, for EMAIL_VERIFICATION_TTL. The account ' +
      'then shows `email_verified: true`. An unknown, used or expired token: 400 naming `token`.',
  })
  @ApiEnvelope(null)
  @ApiErrors(400, 429, {
    400: { field: 'token', rule: 'valid', message: 'token is unknown, used or expired' },
  })
  verifyEmail(@Body() dto: TokenDto): Promise<void> {
    return this.accountTokens.verifyEmail(dto.token);
  }

  @Post('auth/verify-email/resend')
  @Public()
  @MailRateLimit()
  @HttpCode(200)
  @ApiOperation({
    summary: 'Send the verification e-mail again',
    description:
      'No bearer token (with REQUIRE_VERIFIED_EMAIL=true an unverified account cannot log in). Answers 200 with ' +
      '`data: null` whatever the address; the e-mail goes only to an active account whose address is not ' +
      'verified yet, with a new token (the older one stops working). Rate limited like POST /auth/password-reset.',
  })
  @ApiEnvelope(null)
  @ApiErrors(400, 429, {
    400: { field: 'email', rule: 'isEmail', message: 'email must be a valid email address' },
  })
  resendVerification(@Body() dto: AccountEmailDto): Promise<void> {
    return this.accountTokens.resendVerification(dto.email);
  }
}
