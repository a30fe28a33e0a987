import { Logger } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { randomUUID } from 'node:crypto';

declare module 'express-serve-static-core' {
  interface Request {
    /** Correlation id: the caller's `X-Request-Id` when it is sane, otherwise a new UUID. */
    id: string;
  }
}

const SAFE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const logger = new Logger('HTTP');

/**
 * Gives each request an id (echoed in `X-Request-Id`) and logs one structured line when it ends: every request
 * when `logRequests` (LOG_LEVEL log or finer), else only the 5xx answers, and then nothing of the line is
 * computed for the others. Only the path is logged: query strings may carry tokens (the WebSocket URL does), and
 * headers are never logged.
 */
export function requestIdMiddleware(logRequests: boolean) {
  return function requestId(request: Request, response: Response, next: NextFunction): void {
    const incoming = request.headers['x-request-id'];
    request.id = typeof incoming === 'string' && SAFE_REQUEST_ID.test(incoming) ? incoming : randomUUID();
    response.setHeader('X-Request-Id', request.id);
    const started = process.hrtime.bigint();
    response.on('finish', () => {
      if (!logRequests && response.statusCode < 500) return;
      const entry = {
        msg: 'request',
        requestId: request.id,
        method: request.method,
        // The URL as received: a router mounted on a path (the admin console's, /admin) shortens request.path.
        path: request.originalUrl.split('?', 1)[0],
        status: response.statusCode,
        durationMs: Number((process.hrtime.bigint() - started) / 1000n) / 1000,
        ip: request.ip,
      };
      if (response.statusCode >= 500) logger.error(entry);
      else logger.log(entry);
    });
    next();
  };
}
