import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module.js';
import { ConnectionRegistry } from './connection-registry.js';
import { ConnectionSlots } from './connection-slots.js';
import { RealtimeFanout } from './realtime-fanout.js';
import { RealtimeGateway } from './realtime.gateway.js';

@Module({
  imports: [AuthModule],
  providers: [RealtimeGateway, ConnectionRegistry, ConnectionSlots, RealtimeFanout],
})
export class RealtimeModule {}
