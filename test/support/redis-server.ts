import { Redis } from 'ioredis';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A redis-server process of its own on `port` (the binary must be installed), killed with SIGKILL and started
 * again on the same port and data directory. It persists as a queue's Redis must: an append-only file written
 * on every command.
 */
export class RedisProcess {
  private child: ChildProcess | undefined;
  readonly dir = mkdtempSync(join(tmpdir(), 'commerce-redis-'));

  constructor(readonly port: number) {}

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    this.child = spawn(
      'redis-server',
      [
        ...['--port', String(this.port), '--bind', '127.0.0.1', '--dir', this.dir, '--save', ''],
        ...['--appendonly', 'yes', '--appendfsync', 'always'],
      ],
      { stdio: 'ignore' },
    );
    const deadline = Date.now() + 10_000;
    for (;;) {
      const probe = new Redis(this.port, '127.0.0.1', { lazyConnect: true, retryStrategy: () => null });
      probe.on('error', () => undefined);
      try {
        await probe.connect();
        await probe.ping();
        return;
      } catch (error) {
        if (Date.now() > deadline) throw error;
        await sleep(50);
      } finally {
        probe.disconnect();
      }
    }
  }

  async kill(): Promise<void> {
    const child = this.child;
    if (child === undefined || child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, 'exit');
    child.kill('SIGKILL');
    await exited;
  }

  /** Sends the server a signal: SIGSTOP freezes it (connections stay open, nothing is answered), SIGCONT thaws it. */
  signal(signal: NodeJS.Signals): void {
    this.child?.kill(signal);
  }

  /** Deletes what the stopped server had stored: its next start is an empty Redis. */
  clear(): void {
    for (const name of readdirSync(this.dir)) rmSync(join(this.dir, name), { recursive: true, force: true });
  }

  /** Kills the server and removes its data directory. */
  async remove(): Promise<void> {
    await this.kill();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
