// MariaDB servers of the benchmark's own (replica mode): a primary writing a binary log and a replica following
// it, each with its own data directory in a temporary directory and a free port; the shared server is never
// touched. The data directories are removed when the servers stop, also on Ctrl-C and on any exit.
import mysql from 'mysql2/promise';
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort, stopOnInterrupt } from './servers.mjs';

const binary = (name) => (existsSync(`/usr/sbin/${name}`) ? `/usr/sbin/${name}` : name);
const running = new Set();
let removedOnExit = false;

/** Last resort when the process ends without stopping them (an uncaught error, process.exit). */
function removeOnExit() {
  if (removedOnExit) return;
  removedOnExit = true;
  process.once('exit', () => {
    for (const server of running) {
      server.child.kill('SIGKILL');
      rmSync(server.dir, { recursive: true, force: true });
    }
  });
}

/**
 * The buffer pool for a catalogue of `products`: 4 MiB per 1 000 products, at least 1 GiB (the data set takes
 * about 1.8 MiB per 1 000 products: 181 MiB of tables and indexes at 100 000).
 */
export const bufferPoolMiB = (products) => Math.max(1024, Math.ceil(products / 1000) * 4);

/**
 * Starts mariadbd on a fresh data directory (root without a password). `binlog`: a binary log in row format,
 * for a replica to follow; `serverId` distinct for each server of a replication set.
 */
export async function startMariaDb({ binlog = false, serverId, bufferPoolMiB, log }) {
  removeOnExit();
  const dir = mkdtempSync(join(tmpdir(), 'commerce-bench-mariadb-'));
  const datadir = join(dir, 'data');
  try {
    execFileSync(
      binary('mariadb-install-db'),
      [
        '--no-defaults',
        '--user=root',
        `--datadir=${datadir}`,
        '--auth-root-authentication-method=normal',
        '--skip-test-db',
      ],
      { stdio: 'ignore' },
    );
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
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
      `--innodb-buffer-pool-size=${bufferPoolMiB}M`,
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr = (stderr + chunk).slice(-4000)));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const server = {
    child,
    dir,
    port,
    pid: child.pid,
    url: (database) => `mysql://root@127.0.0.1:${port}/${database}`,
    connect: () => mysql.createConnection({ host: '127.0.0.1', port, user: 'root' }),
    async stop() {
      if (!running.delete(server)) return;
      forget();
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        if ((await Promise.race([exited, sleep(60_000).then(() => 'timeout')])) === 'timeout') {
          child.kill('SIGKILL');
          await exited;
        }
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
  running.add(server);
  const forget = stopOnInterrupt(() => server.stop());
  for (let attempt = 0; ; attempt++) {
    try {
      await (await server.connect()).end();
      log(
        `mariadbd (server id ${serverId}, pid ${child.pid}) on port ${port}, buffer pool ${bufferPoolMiB} MiB`,
      );
      return server;
    } catch (error) {
      if (attempt === 150 || child.exitCode !== null) {
        await server.stop();
        throw new Error(`mariadbd did not start on port ${port}: ${error.message}\n${stderr}`);
      }
      await sleep(200);
    }
  }
}

/** Makes `replica` follow `primary` (started with `binlog`) from the start of its binary log. */
export async function replicate(replica, primary) {
  const connection = await replica.connect();
  try {
    await connection.query(
      `CHANGE MASTER TO MASTER_HOST = '127.0.0.1', MASTER_PORT = ${primary.port}, MASTER_USER = 'root', ` +
        "MASTER_PASSWORD = '', MASTER_USE_GTID = slave_pos, MASTER_CONNECT_RETRY = 1",
    );
    await connection.query('START SLAVE');
  } finally {
    await connection.end();
  }
}

/**
 * Waits until `replica` has applied everything `primary` has written so far (its GTID position), has applied all
 * it has received and reports no lag.
 */
export async function caughtUp(replica, primary, timeoutSeconds = 900) {
  const primaryConnection = await primary.connect();
  const replicaConnection = await replica.connect();
  try {
    const deadline = Date.now() + timeoutSeconds * 1000;
    for (;;) {
      const [[{ position }]] = await primaryConnection.query('SELECT @@gtid_binlog_pos AS position');
      const [[{ waited }]] = await replicaConnection.query('SELECT MASTER_GTID_WAIT(?, ?) AS waited', [
        position,
        Math.max(1, Math.ceil((deadline - Date.now()) / 1000)),
      ]);
      const [[status]] = await replicaConnection.query('SHOW SLAVE STATUS');
      if (status?.Slave_SQL_Running !== 'Yes' || status.Slave_IO_Running !== 'Yes') {
        throw new Error(`The replica has stopped: ${status?.Last_Error || status?.Last_IO_Error}`);
      }
      if (
        Number(waited) === 0 &&
        status.Seconds_Behind_Master === 0 &&
        status.Exec_Master_Log_Pos === status.Read_Master_Log_Pos
      ) {
        return;
      }
      if (Date.now() > deadline) {
        throw new Error(`The replica did not catch up with ${position} within ${timeoutSeconds} s`);
      }
      await sleep(200);
    }
  } finally {
    await primaryConnection.end();
    await replicaConnection.end();
  }
}

/** The server's count of SELECT statements so far (every connection's). */
export async function selectCount(connection) {
  const [[{ Value }]] = await connection.query("SHOW GLOBAL STATUS LIKE 'Com_select'");
  return Number(Value);
}
