import { Inject, Injectable, Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { randomUUID } from 'node:crypto';
import type { AuthUser } from '../auth/auth-user.js';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/config.module.js';
import { RedisConnection } from '../redis/redis-connection.js';
import type { SessionsRevokedEvent } from './session-events.js';

/** How often the subscriber's connection is pinged, and how long an answer may take. */
const PING_INTERVAL_MS = 1_000;
const PING_TIMEOUT_MS = 500;
/** Entries kept at most; the oldest go first. */
const MAX_ENTRIES = 100_000;

interface Entry {
  user: AuthUser;
  /** When this instance stops trusting the entry (ms since the epoch). */
  until: number;
}

interface RevocationMessage {
  origin: string;
  revoked: SessionsRevokedEvent;
}

/**
 * The callers of live sessions this instance has checked, for SESSION_CACHE_TTL_MS, so that an authenticated
 * request does not read its session on every call. A revocation (logout, sign-out everywhere, a deactivated,
 * demoted or deleted account, a replayed refresh token) empties the matching entries before the revoking request
 * answers: here at once, and on the other instances through the Redis channel `<prefix>sessions`, published and
 * acknowledged before the answer too. An instance trusts its entries only while it hears that channel: while its
 * subscription is down, or Redis does not answer a ping within 500 ms (checked every second), it forgets them all
 * and reads every session again. A lookup that started before a revocation is not remembered (`generation`).
 */
@Injectable()
export class SessionCache implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('SessionCache');
  private readonly entries = new Map<string, Entry>();
  private readonly ttlMs: number;
  private readonly instanceId = randomUUID();
  private readonly channel: string;
  /** Bumped by every revocation: a lookup that saw another value may have read a revoked session as live. */
  private generation = 0;
  /** Whether revocations from other instances reach this one (always, without Redis). */
  private listening: boolean;
  /** Whether the subscriber's connection holds the subscription. */
  private subscribed = false;
  private pinger: NodeJS.Timeout | null = null;

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly redis: RedisConnection,
  ) {
    this.ttlMs = config.sessions.cacheTtlMs;
    this.channel = `${redis.keyPrefix}sessions`;
    this.listening = redis.client === null;
  }

  async onModuleInit(): Promise<void> {
    if (this.redis.client === null || this.ttlMs === 0) return;
    const subscriber = this.redis.createSubscriber('sessions');
    let subscribed: Promise<void> = Promise.resolve();
    subscriber.on('message', (_channel: string, message: string) => this.received(message));
    subscriber.on('ready', () => (subscribed = this.subscribe(subscriber)));
    subscriber.on('close', () => {
      this.subscribed = false;
      this.deafen();
    });
    this.pinger = setInterval(() => void this.ping(subscriber), PING_INTERVAL_MS).unref();
    if (await this.redis.connect(subscriber)) await subscribed;
  }

  onApplicationShutdown(): void {
    if (this.pinger !== null) clearInterval(this.pinger);
  }

  /** The caller of a live session, from the cache or else from `load` (remembered when live). */
  async find(
    userId: number,
    sessionId: string,
    load: () => Promise<AuthUser | null>,
  ): Promise<AuthUser | null> {
    if (this.ttlMs === 0) return load();
    const now = Date.now();
    const entry = this.entries.get(sessionId);
    if (entry !== undefined && entry.until > now && entry.user.id === userId && this.listening)
      return entry.user;
    const generation = this.generation;
    const user = await load();
    if (user !== null && this.listening && generation === this.generation) this.remember(user, now);
    return user;
  }

  /**
   * After the commit of a revocation: forgets its sessions here and tells the other instances, resolving once
   * Redis has taken the message (or has failed to, which is logged).
   */
  async revoked(event: SessionsRevokedEvent): Promise<void> {
    this.forget(event);
    const client = this.redis.client;
    if (client === null || this.ttlMs === 0) return;
    const message: RevocationMessage = { origin: this.instanceId, revoked: event };
    try {
      await client.publish(this.channel, JSON.stringify(message));
    } catch (error) {
      this.logger.warn({
        msg: 'Redis unavailable: a session revocation reached this instance only',
        error: (error as Error).message,
      });
    }
  }

  private remember(user: AuthUser, now: number): void {
    this.entries.delete(user.sessionId);
    this.entries.set(user.sessionId, { user, until: now + this.ttlMs });
    // Insertion order is expiry order: drop expired entries, and the oldest beyond the bound, from the front.
    for (const [sessionId, entry] of this.entries) {
      if (entry.until > now && this.entries.size <= MAX_ENTRIES) break;
      this.entries.delete(sessionId);
    }
  }

  private forget({ userId, sessionId, exceptSessionId }: SessionsRevokedEvent): void {
    this.generation += 1;
    if (sessionId !== null) {
      this.entries.delete(sessionId);
      return;
    }
    for (const [id, entry] of this.entries) {
      if (entry.user.id === userId && id !== exceptSessionId) this.entries.delete(id);
    }
  }

  private async subscribe(subscriber: Redis): Promise<void> {
    try {
      await subscriber.subscribe(this.channel);
      this.subscribed = true;
      this.listening = true;
    } catch (error) {
      // The connection dropped meanwhile; the next 'ready' subscribes again.
      this.logger.warn({ msg: 'Session revocations subscription failed', error: (error as Error).message });
    }
  }

  /** A frozen Redis closes nothing: the ping finds it, and the cache stops being trusted until it answers. */
  private async ping(subscriber: Redis): Promise<void> {
    if (subscriber.status !== 'ready') return;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('ping timed out')), PING_TIMEOUT_MS);
    });
    try {
      await Promise.race([subscriber.ping(), timeout]);
      if (this.subscribed) this.listening = true;
    } catch {
      this.deafen();
    } finally {
      clearTimeout(timer);
    }
  }

  private deafen(): void {
    if (this.listening)
      this.logger.warn({ msg: 'Session revocations unheard: sessions are read on every request' });
    this.listening = false;
    this.generation += 1;
    this.entries.clear();
  }

  private received(message: string): void {
    let parsed: Partial<RevocationMessage> | null = null;
    try {
      parsed = JSON.parse(message) as Partial<RevocationMessage>;
    } catch {
      // reported below
    }
    const revoked = parsed?.revoked;
    if (
      typeof parsed?.origin !== 'string' ||
      typeof revoked?.userId !== 'number' ||
      (revoked.sessionId !== null && typeof revoked.sessionId !== 'string') ||
      (revoked.exceptSessionId !== null && typeof revoked.exceptSessionId !== 'string')
    ) {
      this.logger.warn({ msg: 'Ignored a malformed message on the sessions channel' });
      return;
    }
    if (parsed.origin !== this.instanceId) this.forget(revoked);
  }
}
