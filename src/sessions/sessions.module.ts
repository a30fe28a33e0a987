import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { SessionCache } from './session-cache.js';
import { SessionPurge } from './session-purge.js';
import { Session } from './session.entity.js';
import { SessionsController } from './sessions.controller.js';
import { UserSessionsController } from './user-sessions.controller.js';
import { SessionsService } from './sessions.service.js';
import { UserSessions } from './user-sessions.js';

@Module({
  imports: [TypeOrmModule.forFeature([Session])],
  controllers: [SessionsController, UserSessionsController],
  providers: [
    SessionsService,
    { provide: UserSessions, useExisting: SessionsService },
    SessionPurge,
    SessionCache,
  ],
  exports: [UserSessions],
})
export class SessionsModule {}
