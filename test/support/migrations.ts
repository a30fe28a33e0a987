import type { DataSource } from 'typeorm';

/**
 * Reverts the newest migrations down to and including `name` (the class's `name`), so that a test of one
 * migration's `down` keeps working as later migrations are added.
 */
export async function revertThrough(
  dataSource: DataSource,
  name: string,
  options?: Parameters<DataSource['undoLastMigration']>[0],
): Promise<void> {
  for (;;) {
    const [last]: Array<{ name: string }> = await dataSource.query(
      'SELECT name FROM migrations ORDER BY id DESC LIMIT 1',
    );
    if (last === undefined) throw new Error(`migration ${name} was never applied`);
    await dataSource.undoLastMigration(options);
    if (last.name === name) return;
  }
}
