import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import type { Env } from '../../src/config/app-config.js';

const ROOT = join(__dirname, '..', '..');

export interface AppProcess {
  url: string;
  pid: number;
  /** Everything the process wrote, for diagnosing a failed start. */
  output(): string;
  /** Resolves with the exit status once the process has ended. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** SIGTERM (once), then waits for the exit. */
  stop(): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

let buildDir: string | undefined;

/**
 * Compiles the service once per test file into its own directory under dist/ (so that test files
 * building at the same time never run each other's half-written output); the processes run it.
 */
export function buildService(): void {
  removeBuildsOfEndedProcesses();
  const outDir = join(ROOT, 'dist', `.test-build-${process.pid}-${randomBytes(4).toString('hex')}`);
  execFileSync(
    process.execPath,
    [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json', '--outDir', outDir],
    { cwd: ROOT, stdio: 'inherit' },
  );
  buildDir = outDir;
  process.once('exit', () => rmSync(outDir, { recursive: true, force: true }));
}

/** Jest may end its workers without an 'exit' event: their builds are removed by the next run. */
function removeBuildsOfEndedProcesses(): void {
  const dist = join(ROOT, 'dist');
  for (const name of existsSync(dist) ? readdirSync(dist) : []) {
    const pid = /^\.test-build-(\d+)-/.exec(name)?.[1];
    if (pid !== undefined && !isRunning(Number(pid)))
      rmSync(join(dist, name), { recursive: true, force: true });
  }
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The entry point compiled by buildService(). */
export function mainScript(): string {
  if (buildDir === undefined) throw new Error('call buildService() first');
  return join(buildDir, 'src/main.js');
}

export async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  return port;
}

/**
 * Starts the built service as its own OS process and waits until /health answers. `cwd` is where it
 * looks for `.env`; `host` is where it is reached (its HOST when that is not all interfaces).
 */
export async function startAppProcess(
  env: Env,
  { cwd = ROOT, host = '127.0.0.1' }: { cwd?: string; host?: string } = {},
): Promise<AppProcess> {
  const port = await freePort();
  let output = '';
  const child: ChildProcess = spawn(process.execPath, [mainScript()], {
    cwd,
    env: {
      PATH: process.env.PATH,
      NODE_ENV: 'test',
      LOG_LEVEL: 'warn',
      SHUTDOWN_DRAIN_MS: '0',
      ...env,
      PORT: String(port),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (chunk) => (output += chunk));
  child.stderr?.on('data', (chunk) => (output += chunk));
  const exited = once(child, 'exit').then(([code, signal]) => ({
    code: code as number | null,
    signal: signal as NodeJS.Signals | null,
  }));
  const url = `http://${host}:${port}`;
  // A start takes 2 s on an idle machine; a machine shared with busy neighbours may need many times that.
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the service exited with ${child.exitCode}:\n${output}`);
    try {
      if ((await fetch(`${url}/api/v1/health`)).ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`the service did not become healthy:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    url,
    pid: child.pid!,
    output: () => output,
    exited,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}
