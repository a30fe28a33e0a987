import { Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/config.module.js';
import { JobQueue } from '../jobs/job-queue.js';
import { UploadService } from './upload.service.js';

/**
 * Every UPLOAD_ORPHAN_INTERVAL, removes uploads older than UPLOAD_ORPHAN_TTL that no product uses. A scheduled
 * job, run once per tick by one instance; each removal is a conditional delete of the locked row, which would
 * also make concurrent runs safe.
 */
@Injectable()
export class OrphanUploadRemoval implements OnModuleInit {
  private readonly logger = new Logger('OrphanUploadRemoval');

  constructor(
    private readonly uploads: UploadService,
    private readonly jobs: JobQueue,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    this.jobs.schedule(
      'uploads.remove-orphans',
      this.config.upload.orphanIntervalSeconds * 1000,
      async () => {
        await this.run();
      },
    );
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
