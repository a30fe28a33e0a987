import type { NestExpressApplication } from '@nestjs/platform-express';
import type { NextFunction, Request, Response } from 'express';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Histogram } from 'prom-client';
import { Metrics, UNMATCHED_ROUTE } from './metrics.js';

export const METRICS_PATH = '/metrics';

/** Answers a scrape with the registry in Prometheus text format. */
async function writeMetrics(metrics: Metrics, response: ServerResponse): Promise<void> {
  try {
    const body = await metrics.scrape();
    response.writeHead(200, { 'Content-Type': metrics.registry.contentType });
    response.end(body);
  } catch {
    response.writeHead(500, { 'Content-Type': 'text/plain' }).end('metrics collection failed\n');
  }
}

/**
 * The template of the route that answered. Nest's not-found handler is a catch-all (`*path`) under the
 * prefix: it and requests answered before routing (unknown paths outside the prefix, refused bodies) share one label.
 */
function routeTemplate(request: Request): string {
  const path = (request.route as { path?: unknown } | undefined)?.path;
  return typeof path === 'string' && !path.startsWith('*') ? request.baseUrl + path : UNMATCHED_ROUTE;
}

/**
 * Times every request and counts those in flight. The route label is the template Express matched
 * (`/api/v1/products/:id`), never the raw URL, so the number of series stays bounded.
 */
function httpMetricsMiddleware(metrics: Metrics) {
  const children = new Map<string, Histogram.Internal<'method' | 'route' | 'status'>>();
  return function recordHttpMetrics(request: Request, response: Response, next: NextFunction): void {
    const started = performance.now();
    metrics.requestsInFlight.inc();
    response.once('close', () => {
      metrics.requestsInFlight.dec();
      if (!response.writableFinished) return; // the client went away before the answer was sent
      const route = routeTemplate(request);
      const status = String(response.statusCode);
      const key = `${request.method} ${route} ${status}`;
      let child = children.get(key);
      if (child === undefined) {
        child = metrics.requestDuration.labels(request.method, route, status);
        children.set(key, child);
      }
      child.observe((performance.now() - started) / 1000);
    });
    next();
  };
}

/**
 * Mounts the request metrics on the application, and `GET /metrics` on it unless METRICS_PORT gives the
 * scrapes a listener of their own (always in production); then `/metrics` here is a 404 envelope like any
 * unknown path of the API. The scrape route comes first: no envelope, rate limit, log line or timing.
 */
export function installHttpMetrics(app: NestExpressApplication, metricsPort: number | null): void {
  const metrics = app.get(Metrics);
  if (metricsPort === null) {
    app
      .getHttpAdapter()
      .getInstance()
      .get(METRICS_PATH, (_request: Request, response: Response) => {
        void writeMetrics(metrics, response);
      });
  }
  app.use(httpMetricsMiddleware(metrics));
  if (metricsPort !== null) {
    app.use((request: Request, response: Response, next: NextFunction) => {
      if (!/^\/metrics(\/|$)/.test(request.path)) return next();
      const details = `Cannot ${request.method} ${request.path}`;
      response.status(404).json({ code: 404, message: 'Not Found', data: { details } });
    });
  }
}

/** The METRICS_PORT listener: `GET /metrics` and nothing else. */
export function createMetricsServer(metrics: Metrics): Server {
  return createServer((request: IncomingMessage, response: ServerResponse) => {
    const path = (request.url ?? '/').split('?')[0];
    if (path === METRICS_PATH && (request.method === 'GET' || request.method === 'HEAD')) {
      void writeMetrics(metrics, response);
    } else {
      response.writeHead(404, { 'Content-Type': 'text/plain' }).end('Not found\n');
    }
  });
}
