import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { join } from 'node:path';
import type { Env } from '../../src/config/app-config.js';

const ROOT = join(__dirname, '..', '..');

export interface AppProcess {
  url: string;
  /** Everything the process wrote, for diagnosing a failed start. */
  output(): string;
  /** SIGTERM, then waits for the exit: Nest closes the app, then re-raises the signal. */
  stop(): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Compiles the service once per test file, so the processes run the code under test. */
export function buildService(): void {
  execFileSync(
    process.execPath,
    [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'],
    {
      cwd: ROOT,
      stdio: 'inherit',
    },
  );
}

async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  return port;
}

export const MAIN_SCRIPT = join(ROOT, 'dist/src/main.js');

/**
 * Starts `node dist/src/main.js` as its own OS process and waits until /health answers. `cwd` is where it
 * looks for `.env`; `host` is where it is reached (its HOST when that is not all interfaces).
 */
export async function startAppProcess(
  env: Env,
  { cwd = ROOT, host = '127.0.0.1' }: { cwd?: string; host?: string } = {},
): Promise<AppProcess> {
  const port = await freePort();
  let output = '';
  const child: ChildProcess = spawn(process.execPath, [MAIN_SCRIPT], {
    cwd,
    env: { PATH: process.env.PATH, NODE_ENV: 'test', LOG_LEVEL: 'warn', ...env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (chunk) => (output += chunk));
  child.stderr?.on('data', (chunk) => (output += chunk));
  const exited = once(child, 'exit').then(([code, signal]) => ({
    code: code as number | null,
    signal: signal as NodeJS.Signals | null,
  }));
  const url = `http://${host}:${port}`;
  for (let attempt = 0; ; attempt++) {
    if (child.exitCode !== null) throw new Error(`the service exited with ${child.exitCode}:\n${output}`);
    try {
      if ((await fetch(`${url}/api/v1/health`)).ok) break;
    } catch {
      // not listening yet
    }
    if (attempt === 300) {
      child.kill('SIGKILL');
      throw new Error(`the service did not become healthy:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    url,
    output: () => output,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}
