import { Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/config.module.js';
import { JobQueue } from '../jobs/job-queue.js';
import { OrdersService } from './orders.service.js';

/**
 * Every ORDER_EXPIRY_INTERVAL, cancels pending unpaid orders older than ORDER_PENDING_TTL: a scheduled job, run
 * once per tick by one instance; the conditional update per order would also make concurrent runs safe.
 */
@Injectable()
export class OrderExpiry implements OnModuleInit {
  private readonly logger = new Logger('OrderExpiry');

  constructor(
    private readonly orders: OrdersService,
    private readonly jobs: JobQueue,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    if (this.config.orders.pendingTtlSeconds > 0) {
      this.jobs.schedule('orders.expire', this.config.orders.expiryIntervalSeconds * 1000, () =>
        this.expire(),
      );
    }
  }

  async expire(): Promise<void> {
    try {
      const expired = await this.orders.expirePending();
      if (expired > 0) this.logger.log({ msg: 'Pending orders expired', expired });
    } catch (error) {
      this.logger.warn({ msg: 'Expiring pending orders failed', error: (error as Error).message });
    }
  }
}
