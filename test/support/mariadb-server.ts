import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import mysql from 'mysql2/promise';
import { freePort } from './app-process.js';

const binary = (name: string) => (existsSync(`/usr/sbin/${name}`) ? `/usr/sbin/${name}` : name);

/**
 * A throwaway MariaDB server of the test's own (own data directory and port, root without a password),
 * which the test may freeze and thaw; the shared server is never touched.
 */
export class MariaDbServer {
  private constructor(
    private readonly child: ChildProcess,
    private readonly dir: string,
    readonly port: number,
  ) {}

  static async start(): Promise<MariaDbServer> {
    const dir = mkdtempSync(join(tmpdir(), 'commerce-mariadb-'));
    const datadir = join(dir, 'data');
    execFileSync(
      'mariadb-install-db',
      [
        '--no-defaults',
        '--user=root',
        `--datadir=${datadir}`,
        '--auth-root-authentication-method=normal',
        '--skip-test-db',
      ],
      { stdio: 'ignore' },
    );
    const port = await freePort();
    const child = spawn(
      binary('mariadbd'),
      [
        '--no-defaults',
        '--user=root',
        `--datadir=${datadir}`,
        `--port=${port}`,
        `--socket=${join(dir, 'mariadb.sock')}`,
        '--bind-address=127.0.0.1',
        '--skip-log-bin',
        '--innodb-buffer-pool-size=32M',
      ],
      { stdio: 'ignore' },
    );
    const server = new MariaDbServer(child, dir, port);
    for (let attempt = 0; ; attempt++) {
      try {
        const connection = await mysql.createConnection({ host: '127.0.0.1', port, user: 'root' });
        await connection.end();
        return server;
      } catch (error) {
        if (attempt === 100 || child.exitCode !== null) {
          await server.stop();
          throw error;
        }
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    }
  }

  /** Creates a database and returns its DATABASE_URL. */
  async createDatabase(name: string): Promise<string> {
    const connection = await mysql.createConnection({ host: '127.0.0.1', port: this.port, user: 'root' });
    await connection.query(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
    await connection.end();
    return `mysql://root@127.0.0.1:${this.port}/${name}`;
  }

  /** The server stops answering: connections stay open, nothing is read or written. */
  freeze(): void {
    this.child.kill('SIGSTOP');
  }

  thaw(): void {
    this.child.kill('SIGCONT');
  }

  async stop(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) {
      this.child.kill('SIGCONT');
      this.child.kill('SIGTERM');
      await once(this.child, 'exit');
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}
