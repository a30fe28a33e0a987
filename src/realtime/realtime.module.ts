import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module.js';
import { ConnectionRegistry } from './connection-registry.js';
import { RealtimeFanout } from './realtime-fanout.js';
import { RealtimeGateway } from './realtime.gateway.js';

@Module({
  imports: [AuthModule],
  providers: [RealtimeGateway, ConnectionRegistry, RealtimeFanout],
})
export class RealtimeModule {}
