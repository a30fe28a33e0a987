import { Logger } from '@nestjs/common';
import { spawn } from 'node:child_process';
import type { Socket } from 'node:net';

/** How long the process may take to end once the shutdown sequence's own deadline has passed. */
export const EXIT_GRACE_MS = 2000;

/**
 * The watchdog process: kills the service (argv pid) with SIGKILL at the deadline (epoch ms) and logs it as the
 * service's Shutdown logger would, unless the service has ended first (its stdin, a pipe from the service,
 * closes), in which case it ends at once.
 */
const WATCHDOG = `
const [pid, deadline, message] = process.argv.slice(1);
const timer = setTimeout(() => {
  try {
    process.kill(Number(pid), 'SIGKILL');
  } catch {
    return;
  }
  const entry = { level: 'error', pid: Number(pid), timestamp: Date.now(), message, context: 'Shutdown' };
  if (message !== '') process.stderr.write(JSON.stringify(entry) + '\\n');
}, Number(deadline) - Date.now());
process.stdin.on('end', () => clearTimeout(timer)).resume();
`;

let started = false;

/**
 * Makes sure the process has ended `afterMs` from now, whatever holds it, by a watchdog in a process of its own.
 * The shutdown sequence's deadline runs on the event loop, which a synchronous call can block (SQLite waiting for
 * another process's lock), and `process.exit()` does not end a process at once: Node first joins its worker
 * threads and libuv's thread pool, and a thread busy in native code is not interrupted. Measured: a worker thread
 * running a 4 s SQLite statement, as the reader (sqlite-reader.ts) leaves one running after SEARCH_TIMEOUT_MS,
 * held `process.exit()` until the statement ended; a file read on a file system that does not answer (a network
 * mount, a FIFO) holds it for good. Called again, it does nothing.
 */
export function startExitWatchdog(afterMs: number, signal: string): void {
  if (started) return;
  started = true;
  const message = Logger.isLevelEnabled('error')
    ? `The process did not end within ${afterMs} ms of ${signal} (SHUTDOWN_DRAIN_MS + SHUTDOWN_TIMEOUT_MS + ` +
      `${EXIT_GRACE_MS} ms): killed with SIGKILL`
    : '';
  try {
    const watchdog = spawn(
      process.execPath,
      ['-e', WATCHDOG, String(process.pid), String(Date.now() + afterMs), message],
      {
        stdio: ['pipe', 'ignore', 'inherit'],
        env: {},
        // A process group of its own: a second Ctrl-C in the terminal does not stop it along with the service.
        detached: true,
      },
    );
    watchdog.on('error', (error) =>
      new Logger('Shutdown').error(`The exit watchdog did not start: ${error.message}`),
    );
    // Neither the watchdog nor the pipe to it keeps the service running.
    watchdog.unref();
    (watchdog.stdin as Socket).unref();
  } catch (error) {
    new Logger('Shutdown').error(`The exit watchdog did not start: ${(error as Error).message}`);
  }
}
