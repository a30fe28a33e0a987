import type { MigrationInterface } from 'typeorm';

// Migrations in the order they apply; a new migration is appended here.
export const migrations: Array<new () => MigrationInterface> = [];
