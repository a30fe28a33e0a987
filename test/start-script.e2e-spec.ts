import { describe, expect, it } from '@jest/globals';
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { freePort } from './support/app-process.js';
import { eventually } from './support/eventually.js';
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

interface NpmStart {
  npm: ChildProcess;
  output(): string;
  exited: Promise<unknown[]>;
}

/** `npm start` in the project, as a user runs it; resolves once the service answers on `port`. */
async function npmStart(port: number, databaseUrl: string): Promise<NpmStart> {
  const npm = spawn('npm', ['start'], {
    cwd: ROOT,
    env: {
      ...process.env,
      NODE_ENV: 'test',
      LOG_LEVEL: 'log',
      PORT: String(port),
      HOST: '127.0.0.1',
      DATABASE_URL: databaseUrl,
      SHUTDOWN_DRAIN_MS: '0',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  npm.stdout.on('data', (chunk) => (output += chunk));
  npm.stderr.on('data', (chunk) => (output += chunk));
  const exited = once(npm, 'exit');
  // The build (`prestart`) comes first: a full one takes minutes on a busy machine.
  await eventually(
    async () => {
      if (npm.exitCode !== null) throw new Error(`npm start exited with ${npm.exitCode}:\n${output}`);
      return fetch(`http://127.0.0.1:${port}/api/v1/health`).then(
        (response) => response.ok,
        () => false,
      );
    },
    { ms: 600_000, everyMs: 100 },
  ).catch((error: Error) => {
    npm.kill('SIGKILL');
    throw new Error(`npm start did not serve: ${error.message}\n${output}`);
  });
  return { npm, output: () => output, exited };
}

/** SIGTERM to npm; resolves with its exit once the service has shut down. */
async function stop({ npm, exited }: NpmStart): Promise<{ code: unknown; signal: unknown }> {
  npm.kill('SIGTERM');
  const [code, signal] = await exited;
  return { code, signal };
}

/**
 * `npm start` is what the README tells users to run, and what a process manager or a container runs: SIGTERM to
 * the npm process must stop the service (its shutdown sequence, exit 0) and free the port, leaving no process.
 */
describe('npm start', () => {
  it('SIGTERM to npm: the service shuts down, the port is freed and no process of the tree is left', async () => {
    const database = await createTestDatabase();
    const port = await freePort();
    let started: NpmStart | undefined;
    let tree: number[] = [];
    try {
      started = await npmStart(port, database.url);
      tree = descendants(started.npm.pid!);
      expect(tree.length).toBeGreaterThan(0);

      expect(await stop(started)).toEqual({ code: 0, signal: null });
      expect(started.output()).toContain('"context":"Shutdown"');
      expect(await portOpen(port)).toBe(false);
      // Every process npm had started is gone (none left serving, none orphaned).
      await eventually(() => tree.every((pid) => !alive(pid)), { ms: 10_000 }).catch(() => undefined);
      expect(tree.filter(alive)).toEqual([]);
    } finally {
      // An orphan has left npm's tree: kill what was seen in it.
      const pid = started?.npm.pid;
      for (const each of new Set([...(pid === undefined ? [] : [pid, ...descendants(pid)]), ...tree])) {
        if (alive(each)) process.kill(each, 'SIGKILL');
      }
      await database.drop();
    }
  }, 900_000);

  /**
   * The build before the start is incremental (scripts/build.mjs): a second start with nothing changed rewrites
   * no built file and says each step is up to date; an edited source of the service is compiled again, and
   * the SDK and the console, whose inputs that edit does not change, are not rebuilt.
   */
  it('a second start with nothing changed builds nothing; an edited service file is compiled again', async () => {
    const database = await createTestDatabase();
    const built = [
      'dist/src/main.js',
      'dist/src/health/health.controller.js',
      'packages/sdk/src/schema.ts',
      'packages/sdk/dist/index.js',
      'packages/admin/dist/index.html',
    ];
    const mtimes = () => Object.fromEntries(built.map((file) => [file, statSync(join(ROOT, file)).mtimeMs]));
    const edited = join(ROOT, 'src/health/health.controller.ts');
    const source = readFileSync(edited, 'utf8');
    const marker = `// start-script test ${process.pid}-${Date.now()}`;
    const starts: NpmStart[] = [];
    const startAndStop = async () => {
      const started = await npmStart(await freePort(), database.url);
      starts.push(started);
      expect(await stop(started)).toEqual({ code: 0, signal: null });
      return started.output();
    };
    try {
      await startAndStop(); // builds whatever is not built yet
      const before = mtimes();

      const second = await startAndStop();
      for (const step of ["the SDK's types", 'the SDK', 'the admin console']) {
        expect(second).toContain(`build: ${step}: up to date`);
      }
      expect(mtimes()).toEqual(before);

      writeFileSync(edited, `${source}${marker}\n`);
      const third = await startAndStop();
      expect(readFileSync(join(ROOT, 'dist/src/health/health.controller.js'), 'utf8')).toContain(marker);
      const after = mtimes();
      expect(after['dist/src/health/health.controller.js']).toBeGreaterThan(
        before['dist/src/health/health.controller.js'],
      );
      // The service's OpenAPI document is the same: the SDK and the console stay as they were.
      expect(third).toContain("build: the SDK's types: npm run generate");
      expect(third).toContain('build: the SDK: up to date');
      expect(third).toContain('build: the admin console: up to date');
      expect(after['packages/sdk/dist/index.js']).toBe(before['packages/sdk/dist/index.js']);
      expect(after['packages/admin/dist/index.html']).toBe(before['packages/admin/dist/index.html']);
    } finally {
      writeFileSync(edited, source);
      for (const { npm } of starts) if (npm.exitCode === null && npm.signalCode === null) npm.kill('SIGKILL');
      await database.drop();
    }
  }, 900_000);
});
