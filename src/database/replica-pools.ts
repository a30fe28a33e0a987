import { AsyncLocalStorage } from 'node:async_hooks';
import type mysql from 'mysql2';

/** The node name TypeORM gives the primary in its pool cluster; the replicas are SLAVE0, SLAVE1… */
export const PRIMARY = 'MASTER';

export interface ReplicaState {
  /** Taken for reads: answered its last check within the lag bound, and no read on it failed since. */
  in: boolean;
  /** The lag it last reported, in milliseconds (null: not known). */
  lagMs: number | null;
}

/** The node a read scope sends every statement to, and whether one was sent there. */
interface ReadScope {
  pools: ReplicaPools;
  node: string;
  used: boolean;
}

const readScope = new AsyncLocalStorage<ReadScope>();

type ConnectionCallback = (error: NodeJS.ErrnoException | null, connection: mysql.PoolConnection) => void;

/**
 * What TypeORM's `replication` option runs on instead of mysql2's pool cluster (MysqlDriver asks the driver
 * for `createPoolCluster`): one pool per server, each made like the single pool (session settings, bounded
 * waits), and one routing rule. TypeORM asks for `MASTER` (writes, transactions, raw queries) or `SLAVE*`
 * (reads outside a transaction); both go to the primary, except inside `runOn` with a replica, where every
 * statement goes to that replica. A replica's connections are read-only, so a write run there by mistake
 * fails instead of being lost.
 */
export class ReplicaPools {
  private readonly pools = new Map<string, mysql.Pool>();
  readonly replicas = new Map<string, ReplicaState>();
  private turn = 0;

  constructor(private readonly createPool: (options: mysql.PoolOptions, replica: boolean) => mysql.Pool) {}

  add(id: string, options: mysql.PoolOptions): void {
    this.pools.set(id, this.createPool(options, id !== PRIMARY));
    if (id !== PRIMARY) this.replicas.set(id, { in: false, lagMs: null });
  }

  getConnection(_pattern: string, callback: ConnectionCallback): void {
    const scope = readScope.getStore();
    let node = PRIMARY;
    if (scope?.pools === this && scope.node !== PRIMARY) {
      node = scope.node;
      scope.used = true;
    }
    this.pool(node).getConnection(callback);
  }

  end(callback: (error: Error | null) => void): void {
    const ends = [...this.pools.values()].map(
      (pool) => new Promise<void>((resolve) => pool.end(() => resolve())),
    );
    void Promise.all(ends).then(() => callback(null));
  }

  pool(id: string): mysql.Pool {
    return this.pools.get(id)!;
  }

  /** The next replica taken for reads, in turn; null when none is. */
  pick(): string | null {
    const taken = [...this.replicas].filter(([, state]) => state.in).map(([id]) => id);
    if (taken.length === 0) return null;
    this.turn = (this.turn + 1) % taken.length;
    return taken[this.turn];
  }

  /** Runs `work` with its statements on `node`; `used()` tells whether any was sent there. */
  runOn<T>(node: string, work: () => T): { result: T; used: () => boolean } {
    const scope: ReadScope = { pools: this, node, used: false };
    const result = readScope.run(scope, work);
    return { result, used: () => scope.used };
  }
}
