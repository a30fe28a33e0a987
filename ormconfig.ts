// Data source for the TypeORM CLI: `npm run migration:run` / `migration:revert` read the same
// DATABASE_URL as the service (from the environment or `.env`).
import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { loadEnvironmentConfig } from './src/config/app-config.js';
import { buildDataSourceOptions } from './src/database/data-source-options.js';

export default new DataSource(await buildDataSourceOptions(await loadEnvironmentConfig()));
