import { Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/config.module.js';
import { JobQueue } from '../jobs/job-queue.js';
import { SessionsService } from './sessions.service.js';

/** Deletes expired sessions every SESSION_PURGE_INTERVAL: a scheduled job, run once per tick by one instance. */
@Injectable()
export class SessionPurge implements OnModuleInit {
  private readonly logger = new Logger('SessionPurge');

  constructor(
    private readonly sessions: SessionsService,
    private readonly jobs: JobQueue,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    this.jobs.schedule('sessions.purge', this.config.sessions.purgeIntervalSeconds * 1000, () =>
      this.purge(),
    );
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
