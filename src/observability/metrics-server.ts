import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/config.module.js';
import { createMetricsServer } from './http-metrics.js';
import { Metrics } from './metrics.js';

/** The listener for scrapes on METRICS_PORT, when it is set; without it /metrics is on the main port. */
@Injectable()
export class MetricsServer implements OnApplicationBootstrap, OnApplicationShutdown {
  private server: Server | null = null;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly metrics: Metrics,
  ) {}

  /** The port it listens on, or null when /metrics is served on the main port. */
  get port(): number | null {
    return this.server === null ? null : (this.server.address() as AddressInfo).port;
  }

  async onApplicationBootstrap(): Promise<void> {
    if (this.config.metricsPort === null) return;
    const server = createMetricsServer(this.metrics);
    server.listen(this.config.metricsPort, this.config.host);
    await once(server, 'listening');
    this.server = server;
    new Logger('Metrics').log(`Metrics on port ${this.port} at /metrics`);
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.server === null) return;
    const closed = once(this.server, 'close');
    this.server.close();
    this.server.closeAllConnections();
    await closed;
  }
}
