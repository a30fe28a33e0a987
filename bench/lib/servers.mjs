// Starting, watching and stopping the servers under test, each pinned to one core when taskset exists.
import { execFileSync, spawn } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/** A script's `--name=value` options, and `--app-env=NAME=VALUE,...` as the service's extra environment. */
export function scriptOptions(argv) {
  const options = Object.fromEntries(
    argv.map((arg) => {
      const [name, value] = arg.replace(/^--/, '').split('=');
      return [name, value ?? 'true'];
    }),
  );
  const appEnv = Object.fromEntries(
    (options['app-env'] ?? '')
      .split(',')
      .filter(Boolean)
      .map((pair) => pair.split('=')),
  );
  return { options, appEnv };
}

/** The service from the build under `root`, in this process on a free port, with `env` over the bench's. */
export async function startInProcess(root, env) {
  const { createApp } = await import(join(root, 'dist/src/app.js'));
  const { loadConfig } = await import(join(root, 'dist/src/config/app-config.js'));
  const app = await createApp(
    loadConfig({
      NODE_ENV: 'production',
      LOG_LEVEL: 'error',
      JWT_SECRET: 'bench-secret-bench-secret-bench-secret-0123',
      THROTTLE_LIMIT: '1000000',
      CATALOG_PUBLIC: 'true',
      ...env,
    }),
  );
  await app.listen(0, '127.0.0.1');
  return { app, base: `http://127.0.0.1:${app.getHttpServer().address().port}/api/v1` };
}

/** A TCP port free on 127.0.0.1 at the time of the call. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

export function hasTaskset() {
  try {
    execFileSync('taskset', ['-V'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Pins this process (the load generator) and all its threads to `core`. */
export function pinSelf(core) {
  execFileSync('taskset', ['-a', '-p', '-c', String(core), String(process.pid)], { stdio: 'ignore' });
}

function get(url) {
  return new Promise((resolve, reject) => {
    const req = request(url, (response) => {
      response.resume();
      response.on('end', () => resolve(response.statusCode));
    });
    req.on('error', reject);
    req.end();
  });
}

const stopsOnInterrupt = new Set();
let handlingSignals = false;

/**
 * Registers `stop` to run when the bench is interrupted (Ctrl-C, SIGTERM), the latest registered first, before the
 * bench exits; returns the function that unregisters it.
 */
export function stopOnInterrupt(stop) {
  if (!handlingSignals) {
    handlingSignals = true;
    for (const signal of ['SIGINT', 'SIGTERM']) {
      process.once(signal, async () => {
        for (const pending of [...stopsOnInterrupt].reverse()) await pending();
        process.exit(130);
      });
    }
  }
  stopsOnInterrupt.add(stop);
  return () => stopsOnInterrupt.delete(stop);
}

/**
 * Starts `node <args>` (under `taskset -c <core>` when pinning) and waits until GET /api/v1/health answers 200.
 * stdout is discarded (request logging is off in the benchmark); stderr is kept for the error message.
 */
export async function startServer({ name, args, env, port, core, cwd }) {
  const command = core === null ? process.execPath : 'taskset';
  const commandArgs = core === null ? args : ['-c', String(core), process.execPath, ...args];
  const child = spawn(command, commandArgs, {
    cwd,
    env: { ...process.env, ...env, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk) => {
    stderr = (stderr + chunk).slice(-4000);
  });
  let exited = null;
  child.on('exit', (code, signal) => {
    exited = { code, signal };
  });
  const stop = async () => {
    forget();
    if (exited !== null) return exited;
    const done = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
    child.kill('SIGTERM');
    const result = await Promise.race([done, sleep(10_000).then(() => null)]);
    if (result !== null) return result;
    child.kill('SIGKILL');
    return done;
  };
  const forget = stopOnInterrupt(stop);
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 300; i++) {
    if (exited !== null) {
      forget();
      throw new Error(`${name} exited during start-up (${JSON.stringify(exited)}):\n${stderr}`);
    }
    try {
      if ((await get(`${url}/api/v1/health`)) === 200) break;
    } catch {
      // not listening yet
    }
    if (i === 299) {
      await stop();
      throw new Error(`${name} did not become healthy on port ${port}:\n${stderr}`);
    }
    await sleep(100);
  }
  return {
    name,
    url,
    pid: child.pid,
    get exited() {
      return exited;
    },
    stderr: () => stderr,
    stop,
  };
}

/** Resets the process's peak resident set size (VmHWM) so that the next reading covers one scenario only. */
export function resetPeakRss(pid) {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

/** Peak resident set size in MiB (VmHWM), or null where /proc is not available. */
export function peakRssMiB(pid) {
  try {
    const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) / 1024 : null;
  } catch {
    return null;
  }
}

const CLOCK_TICKS_PER_SECOND = 100;

/**
 * The pid of the database server when it runs on this machine (mariadbd or mysqld), else null. Its CPU time
 * includes whatever else uses the database meanwhile.
 */
export function databasePid() {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const name = readFileSync(`/proc/${entry}/comm`, 'utf8').trim();
      if (name === 'mariadbd' || name === 'mysqld') return Number(entry);
    } catch {
      // a process that ended meanwhile
    }
  }
  return null;
}

/** CPU time (user + system) the process has used so far, in seconds, or null where /proc is not available. */
export function cpuSeconds(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces) start at field 3; utime and stime are 14 and 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND;
  } catch {
    return null;
  }
}
