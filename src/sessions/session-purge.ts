import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/config.module.js';
import { SessionsService } from './sessions.service.js';

/** Node's timers overflow past this (about 24.8 days) and would fire at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** Deletes expired sessions every SESSION_PURGE_INTERVAL; every instance runs it, the DELETE makes that safe. */
@Injectable()
export class SessionPurge implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('SessionPurge');
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> = Promise.resolve();

  constructor(
    private readonly sessions: SessionsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(
      () => {
        this.running = this.purge();
      },
      Math.min(this.config.sessions.purgeIntervalSeconds * 1000, MAX_TIMER_MS),
    );
    this.timer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }

  async purge(): Promise<void> {
    try {
      const deleted = await this.sessions.purgeExpired();
      if (deleted > 0) this.logger.log({ msg: 'Expired sessions purged', deleted });
    } catch (error) {
      this.logger.warn({ msg: 'Purging expired sessions failed', error: (error as Error).message });
    }
  }
}
