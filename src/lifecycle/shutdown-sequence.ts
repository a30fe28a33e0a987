import { Inject, Injectable, Logger, OnApplicationBootstrap, type INestApplication } from '@nestjs/common';
import { HttpAdapterHost, ModulesContainer } from '@nestjs/core';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { setImmediate as nextLoopTurn, setTimeout as sleep } from 'node:timers/promises';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/config.module.js';

/** How long a connection accepted just before the listener closed may take to send its request. */
const FIRST_REQUEST_GRACE_MS = 1000;

/** The hooks `app.close()` calls, in this order. */
const SHUTDOWN_HOOKS = ['onModuleDestroy', 'beforeApplicationShutdown', 'onApplicationShutdown'] as const;

/**
 * The one owner of the shutdown sequence on SIGTERM/SIGINT:
 * 1. readiness fails at once (`draining`), responses carry `Connection: close`, and the server keeps
 *    accepting and serving for SHUTDOWN_DRAIN_MS while load balancers take the instance out;
 * 2. once the connections queued in the kernel's backlog are accepted, the listener closes (new
 *    connections are refused, not reset);
 * 3. every HTTP connection finishes its request and closes;
 * 4. `app.close()`: the realtime gateway closes WebSockets with 1001, the job queue finishes the jobs
 *    running here (taking no new one) and the event bus the dispatch under way (marking what it dispatched),
 *    then TypeORM closes the database pool and the Redis connections close;
 * 5. exit 0, or 1 when steps 2-4 outlast SHUTDOWN_TIMEOUT_MS: the log names what they were waiting for (the HTTP
 *    requests, or the shutdown hooks still running, e.g. `BullJobQueue.beforeApplicationShutdown`).
 * main.ts ends the process with that status; its exit watchdog (exit-watchdog.ts) kills it should even that not
 * end it.
 */
@Injectable()
export class ShutdownSequence implements OnApplicationBootstrap {
  private readonly logger = new Logger('Shutdown');
  private readonly responses = new Set<ServerResponse>();
  /** Plain HTTP connections (WebSocket ones leave on upgrade), and those that have sent a request. */
  private readonly connections = new Set<Socket>();
  private readonly used = new WeakSet<Socket>();
  private accepted = 0;
  private running: Promise<number> | undefined;
  /** The shutdown hooks running now, as `Class.hook`. */
  private readonly hooksRunning = new Set<string>();
  /** What the sequence is waiting for, for the log when SHUTDOWN_TIMEOUT_MS has passed. */
  private waitingFor = () => 'the connections queued in the listen backlog';
  draining = false;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly adapterHost: HttpAdapterHost,
    private readonly modules: ModulesContainer,
  ) {}

  onApplicationBootstrap(): void {
    const server: Server = this.adapterHost.httpAdapter.getHttpServer();
    server.prependListener('connection', (socket: Socket) => {
      this.accepted += 1;
      this.connections.add(socket);
      socket.once('close', () => this.connections.delete(socket));
    });
    server.prependListener('upgrade', (_request: IncomingMessage, socket: Socket) =>
      this.connections.delete(socket),
    );
    server.prependListener('request', (request: IncomingMessage, response: ServerResponse) => {
      this.used.add(request.socket);
      if (this.draining) response.setHeader('Connection', 'close');
      this.responses.add(response);
      response.once('close', () => this.responses.delete(response));
    });
    this.trackShutdownHooks();
  }

  /** Runs the sequence once; later signals get the same outcome. Resolves to the exit status. */
  run(app: INestApplication, signal: string): Promise<number> {
    if (this.running !== undefined) {
      this.logger.log(`${signal} received again: already shutting down`);
      return this.running;
    }
    this.running = this.drainAndClose(app, signal);
    return this.running;
  }

  private async drainAndClose(app: INestApplication, signal: string): Promise<number> {
    const { drainMs, timeoutMs } = this.config.shutdown;
    this.draining = true;
    for (const response of this.responses) {
      if (!response.headersSent) response.setHeader('Connection', 'close');
    }
    this.logger.log(`${signal} received: readiness fails, serving for ${drainMs} ms more`);
    await sleep(drainMs);

    const drainedAt = Date.now();
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<'deadline'>((resolve) => {
      timer = setTimeout(() => resolve('deadline'), timeoutMs);
    });
    const finished = (async () => {
      const server: Server = app.getHttpServer();
      await this.acceptBacklog(drainedAt + timeoutMs);
      server.close();
      this.logger.log(
        `Stopped accepting connections; finishing ${this.responses.size} requests ` +
          `on ${this.connections.size} connections`,
      );
      this.waitingFor = () =>
        `${this.responses.size} HTTP requests on ${this.connections.size} connections, now cut`;
      await this.httpConnectionsClosed(server);
      this.waitingFor = () =>
        this.hooksRunning.size > 0
          ? [...this.hooksRunning].join(', ')
          : 'the close of the HTTP and WebSocket servers';
      await app.close();
      return 'finished' as const;
    })().catch((error: unknown) => error);
    const outcome = await Promise.race([finished, deadline]);
    clearTimeout(timer);
    if (outcome === 'deadline') {
      this.logger.error(
        `Shutdown did not finish within SHUTDOWN_TIMEOUT_MS (${timeoutMs} ms), waiting for ${this.waitingFor()}`,
      );
      return 1;
    }
    if (outcome !== 'finished') {
      this.logger.error(`Shutdown failed while waiting for ${this.waitingFor()}: ${String(outcome)}`);
      return 1;
    }
    this.logger.log(`Shutdown complete ${Date.now() - drainedAt} ms after the drain`);
    return 0;
  }

  /**
   * Wraps the shutdown hooks of every provider, controller and module so that the sequence knows which are
   * running: when SHUTDOWN_TIMEOUT_MS passes during `app.close()`, the log names the hook that did not return.
   */
  private trackShutdownHooks(): void {
    const seen = new Set<object>();
    for (const module of this.modules.values()) {
      const wrappers = [module.providers, module.controllers, module.injectables, module.middlewares];
      for (const wrapper of wrappers.flatMap((map) => [...map.values()])) {
        const instance: unknown = wrapper.instance;
        if (typeof instance !== 'object' || instance === null || seen.has(instance)) continue;
        seen.add(instance);
        const hooks = instance as Record<string, unknown>;
        for (const hook of SHUTDOWN_HOOKS) {
          const original = hooks[hook];
          if (typeof original !== 'function') continue;
          const name = `${instance.constructor.name}.${hook}`;
          hooks[hook] = async (...args: unknown[]) => {
            this.hooksRunning.add(name);
            try {
              return await original.apply(instance, args);
            } finally {
              this.hooksRunning.delete(name);
            }
          };
        }
      }
    }
  }

  /**
   * Closing the listener resets the connections still queued in the kernel's backlog, and a busy
   * Node accepts about one of them per event-loop turn: turn until a turn accepts none.
   */
  private async acceptBacklog(until: number): Promise<void> {
    let accepted: number;
    do {
      accepted = this.accepted;
      await nextLoopTurn();
    } while (this.accepted !== accepted && Date.now() < until);
  }

  /**
   * Resolves once every plain HTTP connection has closed: those with a request in flight close after
   * their response (`Connection: close`), idle keep-alive ones at once, and those that have not sent a
   * request within FIRST_REQUEST_GRACE_MS are closed.
   */
  private async httpConnectionsClosed(server: Server): Promise<void> {
    const closedAt = Date.now();
    while (this.connections.size > 0) {
      server.closeIdleConnections();
      if (Date.now() - closedAt >= FIRST_REQUEST_GRACE_MS) {
        for (const socket of this.connections) if (!this.used.has(socket)) socket.destroy();
      }
      await sleep(25);
    }
  }
}
