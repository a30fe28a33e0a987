import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { PeriodicJob } from '../common/periodic-job.js';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/config.module.js';
import { OrdersService } from './orders.service.js';

/**
 * Every ORDER_EXPIRY_INTERVAL, cancels pending unpaid orders older than ORDER_PENDING_TTL. Every instance runs it;
 * the conditional update per order makes that safe.
 */
@Injectable()
export class OrderExpiry implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('OrderExpiry');
  private readonly job = new PeriodicJob(() => this.expire());

  constructor(
    private readonly orders: OrdersService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onApplicationBootstrap(): void {
    if (this.config.orders.pendingTtlSeconds > 0)
      this.job.start(this.config.orders.expiryIntervalSeconds * 1000);
  }

  onApplicationShutdown(): Promise<void> {
    return this.job.stop();
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
