import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { PeriodicJob } from '../common/periodic-job.js';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/config.module.js';
import { SessionsService } from './sessions.service.js';

/** Deletes expired sessions every SESSION_PURGE_INTERVAL; every instance runs it, the DELETE makes that safe. */
@Injectable()
export class SessionPurge implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('SessionPurge');
  private readonly job = new PeriodicJob(() => this.purge());

  constructor(
    private readonly sessions: SessionsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onApplicationBootstrap(): void {
    this.job.start(this.config.sessions.purgeIntervalSeconds * 1000);
  }

  onApplicationShutdown(): Promise<void> {
    return this.job.stop();
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
