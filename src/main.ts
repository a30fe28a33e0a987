import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { createApp } from './app.js';
import { ConfigError, loadEnvironmentConfig } from './config/app-config.js';
import { ShutdownSequence } from './lifecycle/shutdown-sequence.js';

process.env.TZ = 'UTC';

async function bootstrap(): Promise<void> {
  const config = await loadEnvironmentConfig();
  const app = await createApp(config);
  const logger = new Logger('Bootstrap');
  if (config.jwt.generated) {
    logger.warn('JWT_SECRET is not set: using a random per-process secret, tokens end with this process');
  }
  await app.listen(config.port, config.host);
  logger.log(`Listening on ${config.host}:${config.port}, database ${config.database.type}`);
  // Not Nest's enableShutdownHooks(): it closes at once and re-raises the signal (exit status 143).
  const shutdown = app.get(ShutdownSequence);
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.on(signal, () => void shutdown.run(app, signal).then((status) => process.exit(status)));
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
