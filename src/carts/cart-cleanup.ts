import { Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/config.module.js';
import { JobQueue } from '../jobs/job-queue.js';
import { CartsService } from './carts.service.js';

/** Removes carts untouched for CART_TTL every CART_CLEANUP_INTERVAL: a scheduled job, one instance per tick. */
@Injectable()
export class CartCleanup implements OnModuleInit {
  private readonly logger = new Logger('CartCleanup');

  constructor(
    private readonly carts: CartsService,
    private readonly jobs: JobQueue,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    this.jobs.schedule('carts.remove-abandoned', this.config.carts.cleanupIntervalSeconds * 1000, () =>
      this.run(),
    );
  }

  async run(): Promise<void> {
    try {
      const removed = await this.carts.removeAbandoned();
      if (removed > 0) this.logger.log({ msg: 'Abandoned carts removed', removed });
    } catch (error) {
      this.logger.warn({ msg: 'Removing abandoned carts failed', error: (error as Error).message });
    }
  }
}
