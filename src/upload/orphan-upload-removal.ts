import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { PeriodicJob } from '../common/periodic-job.js';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/config.module.js';
import { UploadService } from './upload.service.js';

/**
 * Every UPLOAD_ORPHAN_INTERVAL, removes uploads older than UPLOAD_ORPHAN_TTL that no product uses. Every instance
 * runs it; each removal is a conditional delete of the locked row, which makes that safe.
 */
@Injectable()
export class OrphanUploadRemoval implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('OrphanUploadRemoval');
  private readonly job = new PeriodicJob(async () => {
    await this.run();
  });

  constructor(
    private readonly uploads: UploadService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onApplicationBootstrap(): void {
    this.job.start(this.config.upload.orphanIntervalSeconds * 1000);
  }

  onApplicationShutdown(): Promise<void> {
    return this.job.stop();
  }

  /** One pass; returns how many files were removed. */
  async run(now = new Date()): Promise<number> {
    let removed = 0;
    try {
      for (const path of await this.uploads.findOrphans(now)) {
        if (await this.uploads.removeIfOrphan(path, now)) removed += 1;
      }
    } catch (error) {
      this.logger.warn({ msg: 'Removing orphaned uploads failed', error: (error as Error).message, removed });
    }
    if (removed > 0) this.logger.log({ msg: 'Orphaned uploads removed', removed });
    return removed;
  }
}
