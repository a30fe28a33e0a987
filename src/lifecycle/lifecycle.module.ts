import { Global, Module } from '@nestjs/common';
import { ShutdownSequence } from './shutdown-sequence.js';

@Global()
@Module({ providers: [ShutdownSequence], exports: [ShutdownSequence] })
export class LifecycleModule {}
