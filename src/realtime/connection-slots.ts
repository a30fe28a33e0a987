import { Inject, Injectable, Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { randomUUID } from 'node:crypto';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/config.module.js';
import { RedisConnection } from '../redis/redis-connection.js';

/** How often an instance renews the leases of its connections' slots in Redis. */
const LEASE_RENEWAL_MS = 15_000;
/** A slot not renewed for this long (its instance crashed) no longer counts. */
export const SLOT_LEASE_MS = 3 * LEASE_RENEWAL_MS;

/**
 * Takes a slot in the user's and in the IP's sorted set (member: the connection, score: lease end, Redis
 * time) unless either is full; expired leases are dropped first. Replies 0 (taken), 1 (user full), 2 (IP full).
 *
 * KEYS[1] user set, KEYS[2] IP set; ARGV member, lease ms, user limit, IP limit.
 */
const ACQUIRE_SCRIPT = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local lease = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then return 1 end
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[4]) then return 2 end
for i = 1, 2 do
  redis.call('ZADD', KEYS[i], now + lease, ARGV[1])
  redis.call('PEXPIRE', KEYS[i], lease)
end
return 0
`;

/** Moves the lease end of a slot that is still held. KEYS[1] user set, KEYS[2] IP set; ARGV member, lease ms. */
const RENEW_SCRIPT = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
for i = 1, 2 do
  redis.call('ZADD', KEYS[i], 'XX', now + tonumber(ARGV[2]), ARGV[1])
  redis.call('PEXPIRE', KEYS[i], ARGV[2])
end
return 0
`;

interface RedisWithSlots extends Redis {
  acquireConnectionSlot(
    userKey: string,
    ipKey: string,
    member: string,
    leaseMs: number,
    userLimit: number,
    ipLimit: number,
  ): Promise<number>;
  renewConnectionSlot(userKey: string, ipKey: string, member: string, leaseMs: number): Promise<number>;
}

/** A connection's place in the cluster-wide counts; `member` is null when Redis did not count it. */
export interface ConnectionSlot {
  userId: number;
  ip: string;
  member: string | null;
}

export type SlotRefusal = 'user' | 'ip';

/**
 * The cluster-wide side of WS_MAX_CONNECTIONS_PER_USER and WS_MAX_CONNECTIONS_PER_IP: one slot per
 * connection in Redis, leased so that the slots of a crashed instance free themselves. Without REDIS_URL,
 * or while Redis does not answer, only the gateway's per-instance counts apply.
 */
@Injectable()
export class ConnectionSlots implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('Realtime');
  private readonly redis: RedisWithSlots | null;
  private readonly instanceId = randomUUID();
  private readonly held = new Set<ConnectionSlot>();
  private renewal: NodeJS.Timeout | undefined;
  private sequence = 0;
  private failing = false;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly connection: RedisConnection,
  ) {
    const client = connection.client;
    if (client !== null) {
      client.defineCommand('acquireConnectionSlot', { numberOfKeys: 2, lua: ACQUIRE_SCRIPT });
      client.defineCommand('renewConnectionSlot', { numberOfKeys: 2, lua: RENEW_SCRIPT });
    }
    this.redis = client as RedisWithSlots | null;
  }

  onModuleInit(): void {
    if (this.redis === null) return;
    this.renewal = setInterval(() => void this.renewAll(), LEASE_RENEWAL_MS);
    this.renewal.unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.renewal);
  }

  /** Takes a slot for a new connection, or says which limit is reached across the instances. */
  async acquire(userId: number, ip: string): Promise<ConnectionSlot | SlotRefusal> {
    const slot: ConnectionSlot = { userId, ip, member: null };
    if (this.redis !== null) {
      const member = `${this.instanceId}:${(this.sequence += 1)}`;
      const { maxConnectionsPerUser, maxConnectionsPerIp } = this.config.ws;
      try {
        const [userKey, ipKey] = this.keysOf(slot);
        const reply = await this.redis.acquireConnectionSlot(
          userKey,
          ipKey,
          member,
          SLOT_LEASE_MS,
          maxConnectionsPerUser,
          maxConnectionsPerIp,
        );
        this.redisAnswered();
        if (reply === 1) return 'user';
        if (reply === 2) return 'ip';
        slot.member = member;
      } catch (error) {
        this.redisFailed(error);
      }
    }
    this.held.add(slot);
    return slot;
  }

  release(slot: ConnectionSlot): void {
    if (!this.held.delete(slot) || slot.member === null || this.redis === null) return;
    const [userKey, ipKey] = this.keysOf(slot);
    this.redis
      .multi()
      .zrem(userKey, slot.member)
      .zrem(ipKey, slot.member)
      .exec()
      .catch((error: unknown) => this.redisFailed(error));
  }

  private async renewAll(): Promise<void> {
    if (this.redis === null || this.held.size === 0) return;
    const pipeline = this.redis.pipeline();
    for (const slot of this.held) {
      if (slot.member === null) continue;
      const [userKey, ipKey] = this.keysOf(slot);
      (pipeline as unknown as RedisWithSlots).renewConnectionSlot(userKey, ipKey, slot.member, SLOT_LEASE_MS);
    }
    try {
      await pipeline.exec();
      this.redisAnswered();
    } catch (error) {
      this.redisFailed(error);
    }
  }

  private keysOf(slot: ConnectionSlot): [string, string] {
    const prefix = `${this.connection.keyPrefix}ws-connections:`;
    return [`${prefix}user:${slot.userId}`, `${prefix}ip:${slot.ip}`];
  }

  private redisAnswered(): void {
    if (!this.failing) return;
    this.failing = false;
    this.logger.log({ msg: 'Redis is back: WebSocket connection limits are shared again' });
  }

  private redisFailed(error: unknown): void {
    if (this.failing) return;
    this.failing = true;
    this.logger.warn({
      msg: 'Redis unavailable: WebSocket connection limits hold per instance until it returns',
      error: (error as Error).message,
    });
  }
}
