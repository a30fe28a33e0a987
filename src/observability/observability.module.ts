import { Global, Module } from '@nestjs/common';
import { MetricsServer } from './metrics-server.js';
import { Metrics } from './metrics.js';

/** Prometheus metrics for every module (tracing starts before Nest, in main.ts: see tracing.ts). */
@Global()
@Module({ providers: [Metrics, MetricsServer], exports: [Metrics, MetricsServer] })
export class ObservabilityModule {}
