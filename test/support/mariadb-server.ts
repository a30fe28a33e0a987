import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import mysql from 'mysql2/promise';
import { freePort } from './app-process.js';

const binary = (name: string) => (existsSync(`/usr/sbin/${name}`) ? `/usr/sbin/${name}` : name);

export interface MariaDbOptions {
  /** Writes a binary log (row format), so that replicas can follow it. */
  binlog?: boolean;
  /** Distinct for every server of a replication set. */
  serverId?: number;
}

/**
 * A throwaway MariaDB server of the test's own (own data directory and port, root without a password),
 * which the test may freeze and thaw, or make a replica of another (`replicate`); the shared server is never
 * touched.
 */
export class MariaDbServer {
  private constructor(
    private readonly child: ChildProcess,
    private readonly dir: string,
    readonly port: number,
  ) {}

  static async start({ binlog = false, serverId = 1 }: MariaDbOptions = {}): Promise<MariaDbServer> {
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
        `--server-id=${serverId}`,
        ...(binlog ? [`--log-bin=${join(dir, 'binlog')}`, '--binlog-format=ROW'] : ['--skip-log-bin']),
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

  /** Runs one statement as root. */
  async query<T = Record<string, unknown>>(sql: string, params: unknown[] = []): Promise<T[]> {
    const connection = await mysql.createConnection({ host: '127.0.0.1', port: this.port, user: 'root' });
    try {
      const [rows] = await connection.query(sql, params);
      return rows as T[];
    } finally {
      await connection.end();
    }
  }

  /** Makes this server a replica of `primary` (started with `binlog`), from the start of its binary log. */
  async replicate(primary: MariaDbServer): Promise<void> {
    await this.query(
      `CHANGE MASTER TO MASTER_HOST = '127.0.0.1', MASTER_PORT = ${primary.port}, MASTER_USER = 'root', ` +
        "MASTER_PASSWORD = '', MASTER_USE_GTID = slave_pos, MASTER_CONNECT_RETRY = 1",
    );
    await this.query('START SLAVE');
  }

  /** Waits until this replica has applied everything `primary` has written so far. */
  async caughtUp(primary: MariaDbServer, timeoutSeconds = 20): Promise<void> {
    const [{ position }] = await primary.query<{ position: string }>('SELECT @@gtid_binlog_pos AS position');
    const [{ waited }] = await this.query<{ waited: number }>('SELECT MASTER_GTID_WAIT(?, ?) AS waited', [
      position,
      timeoutSeconds,
    ]);
    if (Number(waited) !== 0) throw new Error(`replica did not reach ${position} within ${timeoutSeconds} s`);
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
