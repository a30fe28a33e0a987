/**
 * The better-sqlite3 package for a Node.js version. From Node.js 22 on, better-sqlite3 13: a Node-API addon with
 * bundled binaries. better-sqlite3 12 (a `node::ObjectWrap` addon built from source at install) aborts the
 * process when the garbage collector frees a statement once built against the headers of Node.js 24.19 or later
 * (`Assertion failed: (env) != nullptr` in `node::RemoveEnvironmentCleanupHook`); 13 crashes on Node.js 20, so
 * there the optional dependency `better-sqlite3-node20` (12, built from source for Node.js 20) runs instead.
 */
export function sqliteDriverName(nodeVersion = process.versions.node): string {
  return Number(nodeVersion.split('.')[0]) >= 22 ? 'better-sqlite3' : 'better-sqlite3-node20';
}

/** The module TypeORM's better-sqlite3 driver runs on (its `driver` option). */
export async function loadSqliteDriver(): Promise<unknown> {
  const name = sqliteDriverName();
  try {
    return ((await import(name)) as { default: unknown }).default;
  } catch (error) {
    throw new Error(
      `The SQLite driver ${name} could not be loaded on Node.js ${process.versions.node}: run \`npm ci\` with ` +
        `this Node.js (on Node.js 20 it is built from source: a C++ compiler, make and Python). ${String(error)}`,
    );
  }
}
