import { describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync, readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { freePort } from './support/app-process.js';
import { createTestDatabase } from './support/test-app.js';

const ROOT = join(__dirname, '..');

/** The processes below `pid` (children, grandchildren, ...), from /proc. */
function descendants(pid: number): number[] {
  const parents = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // Field 4 of /proc/PID/stat, after the parenthesised command name.
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      parents.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // ended meanwhile
    }
  }
  const found: number[] = [];
  const walk = (parent: number) => {
    for (const [child, ppid] of parents) {
      if (ppid === parent) {
        found.push(child);
        walk(child);
      }
    }
  };
  walk(pid);
  return found;
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

const portOpen = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });

/**
 * `npm start` is what the README tells users to run, and what a process manager or a container runs: SIGTERM to
 * the npm process must stop the service (its shutdown sequence, exit 0) and free the port, leaving no process.
 */
describe('npm start', () => {
  it('SIGTERM to npm: the service shuts down, the port is freed and no process of the tree is left', async () => {
    const database = await createTestDatabase();
    const port = await freePort();
    const npm = spawn('npm', ['start'], {
      cwd: ROOT,
      env: {
        ...process.env,
        NODE_ENV: 'test',
        LOG_LEVEL: 'log',
        PORT: String(port),
        HOST: '127.0.0.1',
        DATABASE_URL: database.url,
        SHUTDOWN_DRAIN_MS: '0',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    npm.stdout.on('data', (chunk) => (output += chunk));
    npm.stderr.on('data', (chunk) => (output += chunk));
    const exited = once(npm, 'exit');
    let tree: number[] = [];
    try {
      // The build (`prestart`) comes first: up to a minute on a busy machine.
      for (
        let attempt = 0;
        !(await fetch(`http://127.0.0.1:${port}/api/v1/health`).then(
          (r) => r.ok,
          () => false,
        ));
        attempt++
      ) {
        if (npm.exitCode !== null || attempt === 1200) throw new Error(`npm start did not serve:\n${output}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      tree = descendants(npm.pid!);
      expect(tree.length).toBeGreaterThan(0);

      npm.kill('SIGTERM');
      const [code, signal] = await exited;

      expect(output).toContain('"context":"Shutdown"');
      expect({ code, signal }).toEqual({ code: 0, signal: null });
      expect(await portOpen(port)).toBe(false);
      // Every process npm had started is gone (none left serving, none orphaned).
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(tree.filter(alive)).toEqual([]);
    } finally {
      // An orphan has left npm's tree: kill what was seen in it.
      for (const pid of new Set([npm.pid!, ...tree, ...descendants(npm.pid!)])) {
        if (alive(pid)) process.kill(pid, 'SIGKILL');
      }
      await database.drop();
    }
  }, 180_000);
});
