import { fieldError } from '../common/validation.js';

/** True for a unique-index violation on SQLite or MySQL/MariaDB. */
export function isUniqueViolation(error: unknown): boolean {
  const code =
    (error as { code?: string; driverError?: { code?: string } }).driverError?.code ??
    (error as { code?: string }).code;
  return (
    code === 'ER_DUP_ENTRY' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY'
  );
}

/** True for a foreign-key violation on SQLite or MySQL/MariaDB: a deleted row is still referenced. */
export function isForeignKeyViolation(error: unknown): boolean {
  const code =
    (error as { code?: string; driverError?: { code?: string } }).driverError?.code ??
    (error as { code?: string }).code;
  return (
    code === 'SQLITE_CONSTRAINT_FOREIGNKEY' ||
    code === 'ER_ROW_IS_REFERENCED_2' ||
    code === 'ER_ROW_IS_REFERENCED'
  );
}

/**
 * Turns a unique-index violation into the 400 of a taken value (rule `unique`, naming `field`); rethrows any
 * other error. For the race a read-before-insert cannot close: the index decides, the caller gets a 400.
 */
export function throwUniqueViolationAs400(error: unknown, field: string, message: string): never {
  if (isUniqueViolation(error)) throw fieldError(field, 'unique', message);
  throw error;
}

/** True for errors worth retrying the whole transaction for (deadlock, lock wait, busy database). */
export function isTransientLockError(error: unknown): boolean {
  const code =
    (error as { code?: string; driverError?: { code?: string } }).driverError?.code ??
    (error as { code?: string }).code;
  return code === 'ER_LOCK_DEADLOCK' || code === 'ER_LOCK_WAIT_TIMEOUT' || code === 'SQLITE_BUSY';
}
