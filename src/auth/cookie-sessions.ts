import {
  type CallHandler,
  type ExecutionContext,
  ForbiddenException,
  Inject,
  Injectable,
  type NestInterceptor,
} from '@nestjs/common';
import type { CookieOptions, NextFunction, Request, Response } from 'express';
import type { IncomingMessage } from 'node:http';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { map, type Observable } from 'rxjs';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/config.module.js';

/** A browser client asks for a cookie session with this header (`X-Session: cookie`) on any call. */
export const SESSION_MODE_HEADER = 'x-session';
export const CSRF_HEADER = 'x-csrf-token';

/** Where the refresh cookie is sent: the auth paths only (refresh, CSRF token, password reset). */
export const REFRESH_COOKIE_PATH = '/api/v1/auth';
const REFRESH_PATH = `${REFRESH_COOKIE_PATH}/refresh`;
/** An anonymous cart's or a guest order's cookie lasts as long as a cart is kept at most. */
const GUEST_COOKIE_MAX_AGE_MS = 30 * 24 * 3600 * 1000;
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
const SESSION_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export const CSRF_REFUSED =
  'CSRF token missing or invalid: send the X-CSRF-Token header (GET /auth/csrf answers it)';
export const CROSS_SITE_REFUSED = 'Cross-site request refused: its origin is not in CORS_ORIGINS';

/** The secrets a cookie session keeps in cookies; the answers that carry them lose them in cookie mode. */
interface CookieNames {
  access: string;
  refresh: string;
  cart: string;
  order: string;
}

/** The credentials a request carries in this service's cookies. */
interface RequestCookies {
  access?: string;
  refresh?: string;
  cart?: string;
  order?: string;
}

/** What the middleware found, for the handlers that read a cookie themselves (the refresh). */
const COOKIES = Symbol('session cookies');
type WithCookies = Request & { [COOKIES]?: RequestCookies };

function parseCookies(header: string | undefined): Map<string, string> {
  const cookies = new Map<string, string>();
  for (const pair of (header ?? '').split(';')) {
    const at = pair.indexOf('=');
    if (at < 1) continue;
    const name = pair.slice(0, at).trim();
    if (!cookies.has(name)) cookies.set(name, pair.slice(at + 1).trim());
  }
  return cookies;
}

/** The session id an access token names (its `sid` claim), read without verifying: the guard verifies. */
function sessionIdOfAccess(token: string): string | null {
  try {
    const claims = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as {
      sid?: unknown;
    };
    return typeof claims.sid === 'string' && SESSION_ID.test(claims.sid) ? claims.sid : null;
  } catch {
    return null;
  }
}

/** A refresh token is `<session id>.<secret>`. */
const sessionIdOfRefresh = (token: string): string | null => {
  const id = token.split('.')[0];
  return SESSION_ID.test(id) ? id : null;
};

/**
 * Cookie sessions for browsers: the refresh secret, the access token, an anonymous cart's and a guest order's
 * secret in HttpOnly, SameSite=Lax cookies instead of script-readable storage, and the CSRF protection that
 * cookies need. docs/api.md#cookie-sessions describes the contract; bearer tokens work as before beside it.
 */
@Injectable()
export class CookieSessions {
  private readonly names: CookieNames;
  private readonly csrfKey: Buffer;
  private readonly trustedOrigins: ReadonlySet<string>;
  private readonly secure: boolean;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.secure = config.sessionCookieSecure;
    const [host, secure] = this.secure ? ['__Host-', '__Secure-'] : ['', ''];
    this.names = {
      access: `${host}commerce_access`,
      refresh: `${secure}commerce_refresh`,
      cart: `${host}commerce_cart`,
      order: `${host}commerce_order`,
    };
    this.csrfKey = createHmac('sha256', config.jwt.secret).update('csrf-token').digest();
    this.trustedOrigins = new Set(Array.isArray(config.corsOrigins) ? config.corsOrigins : []);
  }

  /**
   * Before rate limiting and authentication: a cookie's credential becomes the header it stands for, unless the
   * request sends that header itself (`Authorization`, `X-Cart-Token`, `X-Order-Token`), so everything after
   * works as with bearer tokens. An unsafe request that uses a cookie's credential, or asks for cookies, must
   * come from the service's own origin or CORS_ORIGINS; one that uses a cookie's credential must also send the
   * CSRF token of a credential it carries. Refusals are 403.
   */
  middleware() {
    return (request: Request, _response: Response, next: NextFunction): void => {
      const found = this.cookiesOf(request);
      (request as WithCookies)[COOKIES] = found;
      const headers = request.headers;
      let usesCookie = false;
      if (found.access !== undefined && headers.authorization === undefined) {
        headers.authorization = `Bearer ${found.access}`;
        usesCookie = true;
      }
      if (found.cart !== undefined && headers['x-cart-token'] === undefined) {
        headers['x-cart-token'] = found.cart;
        usesCookie = true;
      }
      if (found.order !== undefined && headers['x-order-token'] === undefined) {
        headers['x-order-token'] = found.order;
        usesCookie = true;
      }
      if (found.refresh !== undefined && request.path === REFRESH_PATH) usesCookie = true;
      if (SAFE_METHODS.has(request.method)) return next();
      if ((usesCookie || this.wantsCookies(request)) && !this.fromTrustedOrigin(request)) {
        return next(new ForbiddenException(CROSS_SITE_REFUSED));
      }
      if (usesCookie && !this.validCsrf(found, headers[CSRF_HEADER])) {
        return next(new ForbiddenException(CSRF_REFUSED));
      }
      next();
    };
  }

  /** Whether the request asked for a cookie session (`X-Session: cookie`). */
  wantsCookies(request: Request): boolean {
    return request.headers[SESSION_MODE_HEADER] === 'cookie';
  }

  /** The refresh token of the request's refresh cookie (sent to the auth paths only). */
  refreshTokenOf(request: Request): string | undefined {
    return this.found(request).refresh;
  }

  /**
   * The CSRF token for the request's cookies: its session's if it carries one (access or refresh cookie), else
   * its anonymous cart's, else its guest order's; null without any.
   */
  csrfTokenOf(request: Request): string | null {
    const [binding] = this.bindingsOf(this.found(request));
    return binding === undefined ? null : this.csrfToken(binding);
  }

  /**
   * In cookie mode, moves the secrets of an answer into cookies: a login's or refresh's `token` and
   * `refresh_token`, an anonymous cart's `cart_token`, a guest order's `order_token`; the answer gets the
   * `csrf_token` of the credential instead. Any other answer is returned as it is.
   */
  issue(response: Response, data: unknown): unknown {
    if (typeof data !== 'object' || data === null) return data;
    const answer = { ...(data as Record<string, unknown>) };
    let binding: string | undefined;
    const { token, refresh_token: refresh, cart_token: cart, order_token: order } = answer;
    if (typeof order === 'string') {
      response.cookie(this.names.order, order, this.options('/', GUEST_COOKIE_MAX_AGE_MS));
      delete answer.order_token;
      binding = `order:${order}`;
    }
    if (typeof cart === 'string') {
      response.cookie(this.names.cart, cart, this.options('/', GUEST_COOKIE_MAX_AGE_MS));
      delete answer.cart_token;
      binding = `cart:${cart}`;
    }
    if (typeof token === 'string' && typeof refresh === 'string') {
      const seconds = (name: string) => Number(answer[name]) * 1000;
      response.cookie(this.names.access, token, this.options('/', seconds('expires_in')));
      response.cookie(
        this.names.refresh,
        refresh,
        this.options(REFRESH_COOKIE_PATH, seconds('refresh_expires_in')),
      );
      delete answer.token;
      delete answer.refresh_token;
      binding = `session:${sessionIdOfAccess(token)}`;
    }
    if (binding === undefined) return data;
    answer.csrf_token = this.csrfToken(binding);
    return answer;
  }

  /** Expires the session's cookies (logout, a refused refresh, a password reset), when the request had any. */
  clearSession(request: Request, response: Response): void {
    const found = this.found(request);
    if (found.access === undefined && found.refresh === undefined && !this.wantsCookies(request)) return;
    response.clearCookie(this.names.access, this.options('/'));
    response.clearCookie(this.names.refresh, this.options(REFRESH_COOKIE_PATH));
  }

  /**
   * The access token of a WebSocket upgrade's cookie, when the upgrade comes from the service's own origin or
   * CORS_ORIGINS (a browser sends cookies with any site's upgrade); null otherwise.
   */
  socketToken(request: IncomingMessage): string | null {
    const access = parseCookies(request.headers.cookie).get(this.names.access);
    if (access === undefined) return null;
    const origin = request.headers.origin;
    return origin === undefined || this.ownOrTrusted(origin, request.headers.host) ? access : null;
  }

  /** What the middleware found in the request's cookies. */
  private found(request: Request): RequestCookies {
    return (request as WithCookies)[COOKIES] ?? {};
  }

  /** An `Origin` of CORS_ORIGINS, or of the host the request was sent to (the service's own). */
  private ownOrTrusted(origin: string, host: string | undefined): boolean {
    if (this.trustedOrigins.has(origin)) return true;
    try {
      return host !== undefined && new URL(origin).host === host;
    } catch {
      return false;
    }
  }

  private cookiesOf(request: Request): RequestCookies {
    const cookies = parseCookies(request.headers.cookie);
    return {
      access: cookies.get(this.names.access),
      refresh: cookies.get(this.names.refresh),
      cart: cookies.get(this.names.cart),
      order: cookies.get(this.names.order),
    };
  }

  private bindingsOf({ access, refresh, cart, order }: RequestCookies): string[] {
    const session = (access && sessionIdOfAccess(access)) || (refresh && sessionIdOfRefresh(refresh));
    return [
      ...(session ? [`session:${session}`] : []),
      ...(cart ? [`cart:${cart}`] : []),
      ...(order ? [`order:${order}`] : []),
    ];
  }

  /** HMAC of the credential: bound to it, unguessable without the service's secret, never stored. */
  private csrfToken(binding: string): string {
    return createHmac('sha256', this.csrfKey).update(binding).digest('base64url');
  }

  private validCsrf(found: RequestCookies, sent: string | string[] | undefined): boolean {
    if (typeof sent !== 'string') return false;
    const given = Buffer.from(sent);
    return this.bindingsOf(found).some((binding) => {
      const expected = Buffer.from(this.csrfToken(binding));
      return expected.length === given.length && timingSafeEqual(expected, given);
    });
  }

  /**
   * A browser says where a request comes from: `Sec-Fetch-Site` (same-origin, or none for one the user
   * started), else `Origin`. A client that sends neither is not a browser, and cookies are no ambient
   * credential for it.
   */
  private fromTrustedOrigin(request: Request): boolean {
    const origin = request.headers.origin;
    if (origin !== undefined && this.trustedOrigins.has(origin)) return true;
    const site = request.headers['sec-fetch-site'];
    if (site !== undefined) return site === 'same-origin' || site === 'none';
    return origin === undefined || this.ownOrTrusted(origin, request.get('host'));
  }

  private options(path: string, maxAge?: number): CookieOptions {
    return {
      httpOnly: true,
      secure: this.secure,
      sameSite: 'lax',
      path,
      ...(maxAge === undefined ? {} : { maxAge }),
    };
  }
}

/** Global: hands each answer to CookieSessions.issue, inside the envelope. */
@Injectable()
export class CookieSessionInterceptor implements NestInterceptor {
  constructor(private readonly cookies: CookieSessions) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() !== 'http') return next.handle();
    const http = context.switchToHttp();
    const request = http.getRequest<Request>();
    if (!this.cookies.wantsCookies(request)) return next.handle();
    const response = http.getResponse<Response>();
    return next.handle().pipe(map((data) => this.cookies.issue(response, data)));
  }
}
