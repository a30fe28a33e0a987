import { Module } from '@nestjs/common';
import { JwtModule } from '@nestjs/jwt';
import { PassportModule } from '@nestjs/passport';
import { createSecretKey, KeyObject } from 'node:crypto';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/config.module.js';
import { OrdersModule } from '../orders/orders.module.js';
import { SessionsModule } from '../sessions/sessions.module.js';
import { UsersModule } from '../users/users.module.js';
import { AccountTokens } from './account-tokens.js';
import { AccountTokensService } from './account-tokens.service.js';
import { AuthController } from './auth.controller.js';
import { AuthService } from './auth.service.js';
import { CookieSessions } from './cookie-sessions.js';
import { JWT_KEY, JwtStrategy } from './jwt.strategy.js';
import { LoginFailures } from './login-failures.js';
import { MeController } from './me.controller.js';
import { TokenAuthenticator } from './token-authenticator.js';
import { VerifiedTokens } from './verified-tokens.js';

const jwtKeyProvider = {
  provide: JWT_KEY,
  inject: [APP_CONFIG],
  useFactory: (config: AppConfig) => createSecretKey(Buffer.from(config.jwt.secret, 'utf8')),
};

@Module({
  imports: [
    UsersModule,
    SessionsModule,
    OrdersModule,
    PassportModule,
    JwtModule.registerAsync({
      inject: [APP_CONFIG, JWT_KEY],
      extraProviders: [jwtKeyProvider],
      useFactory: (config: AppConfig, key: KeyObject) => ({
        secret: key,
        signOptions: { algorithm: 'HS256', expiresIn: config.jwt.expiresInSeconds },
        verifyOptions: { algorithms: ['HS256'] },
      }),
    }),
  ],
  controllers: [AuthController, MeController],
  providers: [
    AuthService,
    { provide: TokenAuthenticator, useExisting: AuthService },
    AccountTokensService,
    { provide: AccountTokens, useExisting: AccountTokensService },
    JwtStrategy,
    VerifiedTokens,
    LoginFailures,
    jwtKeyProvider,
    CookieSessions,
  ],
  exports: [TokenAuthenticator, AccountTokens, CookieSessions],
})
export class AuthModule {}
