import { Logger } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import express, { type Request, type Response } from 'express';
import { existsSync } from 'node:fs';
import { join, sep } from 'node:path';
import type { AppConfig } from '../config/app-config.js';

export const ADMIN_CONSOLE_PATH = '/admin';

/**
 * The console's responses: its own scripts, styles and API (HTTP and the WebSocket) only, never framed
 * (docs/console.md#content-security-policy). Replaces the service's general policy (helmet's) for /admin.
 */
export const ADMIN_CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "connect-src 'self' ws: wss:",
  "object-src 'none'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'self'",
].join('; ');

/** The build's file names under assets/ carry a hash of their content: a changed file gets a new name. */
const IMMUTABLE = 'public, max-age=31536000, immutable';
/** index.html and the other unhashed files: the browser asks again each time, so a new build is seen at once. */
const REVALIDATE = 'no-cache';

/** A path whose last segment has an extension asks for a file; any other is one of the console's pages. */
const FILE_PATH = /\.[A-Za-z0-9]+$/;

function answerPage(response: Response, status: number, title: string, text: string): void {
  response
    .status(status)
    .type('html')
    .setHeader('Cache-Control', 'no-store')
    .send(
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title></head>` +
        `<body><h1>${title}</h1><p>${text}</p></body></html>\n`,
    );
}

/**
 * Serves the built admin console (packages/admin/dist) at /admin on the service's own port: its files, and
 * index.html for every other path under /admin (the console's own routes). Unless `enabled` is false: then
 * /admin is an unknown path like any other.
 */
export function mountAdminConsole(
  app: NestExpressApplication,
  { enabled, dir }: AppConfig['adminConsole'],
): void {
  if (!enabled) return;
  const indexFile = join(dir, 'index.html');
  if (!existsSync(indexFile)) {
    new Logger('AdminConsole').warn(
      `${indexFile} not found: /admin answers 503 until the console is built (npm run build)`,
    );
  }
  const assetsDir = join(dir, 'assets') + sep;
  const router = express.Router();
  router.use((_request: Request, response: Response, next: () => void) => {
    response.setHeader('Content-Security-Policy', ADMIN_CONSOLE_CSP);
    // The same for browsers that know only the older header (helmet's default is SAMEORIGIN).
    response.setHeader('X-Frame-Options', 'DENY');
    next();
  });
  router.use(
    express.static(dir, {
      index: false,
      redirect: false,
      etag: false,
      lastModified: false,
      cacheControl: false,
      setHeaders: (response, path) =>
        response.setHeader('Cache-Control', path.startsWith(assetsDir) ? IMMUTABLE : REVALIDATE),
    }),
  );
  router.get(['/', '/{*path}'], (request: Request, response: Response) => {
    // Looked for on each request: a console built while the service runs is served without a restart.
    if (!existsSync(indexFile)) {
      answerPage(
        response,
        503,
        'Admin console not built',
        'The service runs, but its admin console has not been built: run <code>npm run build</code>.',
      );
    } else if (FILE_PATH.test(request.path)) {
      answerPage(response, 404, 'Not found', 'The admin console has no such file.');
    } else {
      response.setHeader('Cache-Control', REVALIDATE);
      response.sendFile(indexFile, { etag: false, lastModified: false, cacheControl: false });
    }
  });
  app.use(ADMIN_CONSOLE_PATH, router);
}
