import { Global, Module, OnApplicationShutdown } from '@nestjs/common';
import { MetricsServer } from './metrics-server.js';
import { Metrics } from './metrics.js';
import { stopTracing } from './tracing.js';

/** Prometheus metrics for every module; tracing is started before Nest (main.ts) and flushed here at shutdown. */
@Global()
@Module({ providers: [Metrics, MetricsServer], exports: [Metrics, MetricsServer] })
export class ObservabilityModule implements OnApplicationShutdown {
  onApplicationShutdown(): Promise<void> {
    return stopTracing();
  }
}
