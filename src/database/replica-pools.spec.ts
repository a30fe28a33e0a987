import { describe, expect, it } from '@jest/globals';
import type mysql from 'mysql2';
import { PRIMARY, ReplicaPools } from './replica-pools.js';

/** Pools that answer with their own name instead of a connection, and remember which were made read-only. */
function pools() {
  const replicaPools: string[] = [];
  const cluster = new ReplicaPools((options, replica) => {
    const name = String(options.host);
    if (replica) replicaPools.push(name);
    return {
      getConnection: (callback: (error: null, connection: unknown) => void) => callback(null, name),
      end: (callback: () => void) => callback(),
    } as unknown as mysql.Pool;
  });
  cluster.add('SLAVE0', { host: 'replica-a' });
  cluster.add('SLAVE1', { host: 'replica-b' });
  cluster.add(PRIMARY, { host: 'primary' });
  const connect = (pattern: string) =>
    new Promise<string>((resolve) =>
      cluster.getConnection(pattern, (_, connection) => resolve(String(connection))),
    );
  return { cluster, replicaPools, connect };
}

describe('ReplicaPools', () => {
  it('sends every statement to the primary outside a read scope, whatever TypeORM asks for', async () => {
    const { connect, replicaPools, cluster } = pools();
    expect(await connect('MASTER')).toBe('primary');
    expect(await connect('SLAVE*')).toBe('primary');
    expect(replicaPools).toEqual(['replica-a', 'replica-b']);
    expect(cluster.pick()).toBeNull(); // replicas start out until checked
  });

  it('takes the replicas in turn, only those in, and sends every statement of a scope to its replica', async () => {
    const { cluster, connect } = pools();
    cluster.replicas.get('SLAVE0')!.in = true;
    cluster.replicas.get('SLAVE1')!.in = true;
    expect([cluster.pick(), cluster.pick(), cluster.pick(), cluster.pick()]).toEqual([
      'SLAVE1',
      'SLAVE0',
      'SLAVE1',
      'SLAVE0',
    ]);
    cluster.replicas.get('SLAVE1')!.in = false;
    expect([cluster.pick(), cluster.pick()]).toEqual(['SLAVE0', 'SLAVE0']);

    const run = cluster.runOn('SLAVE1', () => Promise.all([connect('SLAVE*'), connect('MASTER')]));
    expect(run.used()).toBe(true);
    expect(await run.result).toEqual(['replica-b', 'replica-b']);
    const idle = cluster.runOn('SLAVE0', () => 'no statement');
    expect([idle.result, idle.used()]).toEqual(['no statement', false]);
    expect(await cluster.runOn(PRIMARY, () => connect('SLAVE*')).result).toBe('primary');
    expect(await connect('SLAVE*')).toBe('primary');
  });
});
