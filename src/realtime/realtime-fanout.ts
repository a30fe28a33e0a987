import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { randomUUID } from 'node:crypto';
import { RedisConnection } from '../redis/redis-connection.js';
import type { SessionsRevokedEvent } from '../sessions/session-events.js';
import { ConnectionRegistry } from './connection-registry.js';
import type { ServerFrame } from './frames.js';

/**
 * What travels on the Redis channel: a serialised frame and who should get it (null: everyone), or
 * revoked sessions whose connections every instance closes.
 */
/** Who receives a frame: one user's connections, everyone (`null`), the `orders` channel's subscribers, or admins. */
type Audience = number | null | 'orders' | 'admins';

type FanoutEnvelope =
  { origin: string; userId: Audience; payload: string } | { origin: string; revoked: SessionsRevokedEvent };

/**
 * Delivers server frames to the right connections of every instance. The sending instance delivers to
 * its own connections at once and publishes to Redis; the others deliver what they receive, and each
 * instance ignores its own publications, so a frame reaches every connection exactly once. Without
 * REDIS_URL, or while Redis is down, delivery is local only.
 */
@Injectable()
export class RealtimeFanout implements OnModuleInit {
  private readonly logger = new Logger('RealtimeFanout');
  private readonly instanceId = randomUUID();
  private readonly channel: string;
  private publishFailing = false;

  constructor(
    private readonly registry: ConnectionRegistry,
    private readonly redis: RedisConnection,
  ) {
    this.channel = `${redis.keyPrefix}realtime`;
  }

  /** Subscribes before the server accepts connections; with Redis down, as soon as Redis is back. */
  async onModuleInit(): Promise<void> {
    if (this.redis.client === null) return;
    const subscriber = this.redis.createSubscriber('subscriber');
    let subscribed: Promise<void> = Promise.resolve();
    subscriber.on('message', (_channel: string, message: string) => this.deliverPublished(message));
    subscriber.on('ready', () => (subscribed = this.subscribe(subscriber)));
    if (await this.redis.connect(subscriber)) await subscribed;
  }

  private async subscribe(subscriber: Redis): Promise<void> {
    try {
      await subscriber.subscribe(this.channel);
      this.logger.log({ msg: 'Realtime fan-out subscribed', channel: this.channel });
    } catch (error) {
      // The connection dropped meanwhile; the next 'ready' subscribes again.
      this.logger.warn({ msg: 'Realtime fan-out subscription failed', error: (error as Error).message });
    }
  }

  broadcast(frame: ServerFrame): void {
    this.deliver(null, JSON.stringify(frame));
  }

  sendToUser(userId: number, frame: ServerFrame): void {
    this.deliver(userId, JSON.stringify(frame));
  }

  /** To every admin connection and to the (non-admin) user's own connections. */
  sendToAdminsAndUser(userId: number, frame: ServerFrame): void {
    const payload = JSON.stringify(frame);
    this.deliver('admins', payload);
    this.deliver(userId, payload);
  }

  sendToOrderSubscribers(frame: ServerFrame): void {
    this.deliver('orders', JSON.stringify(frame));
  }

  /** Closes the connections of revoked sessions here and on every other instance. */
  closeRevoked(event: SessionsRevokedEvent): void {
    this.registry.closeRevoked(event);
    this.publish({ origin: this.instanceId, revoked: event });
  }

  private deliver(userId: Audience, payload: string): void {
    this.deliverLocally(userId, payload);
    this.publish({ origin: this.instanceId, userId, payload });
  }

  private publish(envelope: FanoutEnvelope): void {
    const client = this.redis.client;
    if (client === null) return;
    client.publish(this.channel, JSON.stringify(envelope)).then(
      () => {
        if (this.publishFailing) this.logger.log({ msg: 'Realtime fan-out through Redis resumed' });
        this.publishFailing = false;
      },
      (error: Error) => {
        if (!this.publishFailing) {
          this.logger.warn({
            msg: 'Redis unavailable: realtime frames reach this instance only',
            error: error.message,
          });
        }
        this.publishFailing = true;
      },
    );
  }

  private deliverPublished(message: string): void {
    let envelope: Record<string, unknown> | null = null;
    try {
      envelope = JSON.parse(message) as Record<string, unknown> | null;
    } catch {
      // reported below
    }
    if (envelope?.revoked !== undefined) {
      const revoked = envelope.revoked as Partial<SessionsRevokedEvent> | null;
      if (
        typeof envelope.origin !== 'string' ||
        typeof revoked?.userId !== 'number' ||
        (revoked.sessionId !== null && typeof revoked.sessionId !== 'string') ||
        (revoked.exceptSessionId !== null && typeof revoked.exceptSessionId !== 'string')
      ) {
        this.logger.warn({ msg: 'Ignored a malformed message on the realtime channel' });
        return;
      }
      if (envelope.origin !== this.instanceId) this.registry.closeRevoked(revoked as SessionsRevokedEvent);
      return;
    }
    const userId = envelope?.userId;
    if (
      typeof envelope?.payload !== 'string' ||
      typeof envelope.origin !== 'string' ||
      (userId !== null && userId !== 'orders' && userId !== 'admins' && typeof userId !== 'number')
    ) {
      this.logger.warn({ msg: 'Ignored a malformed message on the realtime channel' });
      return;
    }
    if (envelope.origin === this.instanceId) return;
    this.deliverLocally(userId as Audience, envelope.payload);
  }

  private deliverLocally(userId: Audience, payload: string): void {
    if (userId === null) this.registry.sendToAll(payload);
    else if (userId === 'orders') this.registry.sendToOrderSubscribers(payload);
    else if (userId === 'admins') this.registry.sendToAdmins(payload);
    else this.registry.sendToUser(userId, payload);
  }
}
