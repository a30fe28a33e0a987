import { Injectable, UnauthorizedException } from '@nestjs/common';
import { JwtService } from '@nestjs/jwt';
import { toUserResponse, UserResponseDto } from '../users/dto/user-response.dto.js';
import { UsersService } from '../users/users.service.js';
import type { AuthUser, TokenClaims } from './auth-user.js';
import type { LoginDto, LoginResponseDto } from './dto/login.dto.js';
import type { RegisterDto } from './dto/register.dto.js';
import { PasswordHasher } from './password-hasher.js';

const BAD_CREDENTIALS = 'Invalid username or password';

@Injectable()
export class AuthService {
  constructor(
    private readonly users: UsersService,
    private readonly hasher: PasswordHasher,
    private readonly jwt: JwtService,
  ) {}

  async register(dto: RegisterDto): Promise<UserResponseDto> {
    return toUserResponse(await this.users.register(dto), true);
  }

  async login(dto: LoginDto): Promise<LoginResponseDto> {
    const user = await this.users.findForLogin(dto.username);
    // The same answer (and about the same time) whether the user is unknown or the password wrong.
    if (!(await this.hasher.verify(user?.passwordHash ?? null, dto.password)) || user === null) {
      throw new UnauthorizedException(BAD_CREDENTIALS);
    }
    if (!user.isActive) throw new UnauthorizedException('Account is deactivated');
    const claims: TokenClaims = { sub: String(user.id), username: user.username, role: user.role };
    return { token: await this.jwt.signAsync(claims), user: toUserResponse(user, false) };
  }

  /** The caller behind verified claims, or 401 when the account is gone or deactivated. */
  async userFromClaims(claims: TokenClaims): Promise<AuthUser> {
    const id = Number(claims.sub);
    const user = Number.isSafeInteger(id) ? await this.users.findAuthUser(id) : null;
    if (user === null) throw new UnauthorizedException('Token is no longer valid');
    return user;
  }

  /** Verifies a raw token (signature, HS256, expiry) and loads its user; used where there is no HTTP guard. */
  async authenticate(token: string): Promise<AuthUser> {
    let claims: TokenClaims;
    try {
      claims = await this.jwt.verifyAsync<TokenClaims>(token);
    } catch {
      throw new UnauthorizedException('Invalid or expired token');
    }
    return this.userFromClaims(claims);
  }
}
