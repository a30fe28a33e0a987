import { describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { sqliteDriverName } from '../src/database/sqlite-driver.js';

const ROOT = join(__dirname, '..');

/**
 * The embedded database's driver, as installed by `npm ci` for the Node.js running the tests, survives the garbage
 * collector freeing statements outside JavaScript. better-sqlite3 12 built against the headers of Node.js 24.19 or
 * later aborted there (`Assertion failed: (env) != nullptr`) in 4 to 9 of 10 runs of this script on Node.js 24.21.0.
 */
describe('SQLite driver on this Node.js', () => {
  it('frees 500 000 prepared statements under garbage collection without aborting (5 processes)', () => {
    const name = sqliteDriverName();
    for (let run = 0; run < 5; run++) {
      const child = spawnSync(
        process.execPath,
        ['--expose-gc', join(__dirname, 'support/sqlite-gc.mjs'), name],
        { cwd: ROOT, encoding: 'utf8', timeout: 120_000 },
      );
      expect({ status: child.status, signal: child.signal, stderr: child.stderr }).toEqual({
        status: 0,
        signal: null,
        stderr: '',
      });
      // 13 (Node-API) from Node.js 22 on, 12 built for Node.js 20 before.
      const major = Number(process.versions.node.split('.')[0]);
      expect(child.stdout).toMatch(major >= 22 ? /^13\./ : /^12\./);
    }
  }, 300_000);
});
