/** True for a unique-index violation on SQLite or MySQL/MariaDB. */
export function isUniqueViolation(error: unknown): boolean {
  const code =
    (error as { code?: string; driverError?: { code?: string } }).driverError?.code ??
    (error as { code?: string }).code;
  return (
    code === 'ER_DUP_ENTRY' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY'
  );
}

/** True for errors worth retrying the whole transaction for (deadlock, lock wait, busy database). */
export function isTransientLockError(error: unknown): boolean {
  const code =
    (error as { code?: string; driverError?: { code?: string } }).driverError?.code ??
    (error as { code?: string }).code;
  return code === 'ER_LOCK_DEADLOCK' || code === 'ER_LOCK_WAIT_TIMEOUT' || code === 'SQLITE_BUSY';
}
