import 'reflect-metadata';
import { ConfigError, loadEnvironmentConfig } from './config/app-config.js';
import { startTracing } from './observability/tracing.js';

process.env.TZ = 'UTC';

async function bootstrap(): Promise<void> {
  const config = await loadEnvironmentConfig();
  // Tracing patches express, mysql2, ioredis and http as they load: the application is imported after it.
  if (config.otlpEndpoint !== null) await startTracing(import.meta.url);
  const [{ Logger }, { createApp }, { ShutdownSequence }, { EXIT_GRACE_MS, startExitWatchdog }] =
    await Promise.all([
      import('@nestjs/common'),
      import('./app.js'),
      import('./lifecycle/shutdown-sequence.js'),
      import('./lifecycle/exit-watchdog.js'),
    ]);
  const app = await createApp(config);
  const logger = new Logger('Bootstrap');
  if (config.jwt.generated) {
    logger.warn('JWT_SECRET is not set: using a random per-process secret, tokens end with this process');
  }
  await app.listen(config.port, config.host);
  logger.log(`Listening on ${config.host}:${config.port}, database ${config.database.type}`);
  // Not Nest's enableShutdownHooks(): it closes at once and re-raises the signal (exit status 143).
  const shutdown = app.get(ShutdownSequence);
  const { drainMs, timeoutMs } = config.shutdown;
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.on(signal, () => {
      startExitWatchdog(drainMs + timeoutMs + EXIT_GRACE_MS, signal);
      void shutdown.run(app, signal).then((status) => process.exit(status));
    });
  }
}

bootstrap().catch((error: unknown) => {
  if (error instanceof ConfigError) {
    console.error(error.message);
  } else {
    console.error('Start-up failed:', error instanceof Error ? error.stack : error);
  }
  process.exit(1);
});
