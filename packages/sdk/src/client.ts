import createClient, { type Client, type Middleware, type QuerySerializer } from 'openapi-fetch';
import { CommerceApiError } from './errors.js';
import { headerParameters, type components, type paths } from './schema.js';
import { createSession, type LockManagerLike, type Session } from './session.js';
import { openSocket, type CommerceSocket, type SocketOptions, type WebSocketConstructor } from './socket.js';
import { memoryTokenStore, type Tokens, type TokenStore } from './tokens.js';
import { serializeQuery } from './query-string.js';

export type Schemas = components['schemas'];
export type UploadResult = Schemas['UploadResultDto'];

export interface CommerceClientOptions {
  /** The API's base URL: `https://shop.example/api/v1`, or `/api/v1` in a browser on the service's origin. */
  baseUrl: string;
  /** Where tokens are kept (default: in memory, for this client object only). */
  tokens?: TokenStore;
  /** The fetch to call (default `globalThis.fetch`). */
  fetch?: typeof fetch;
  /** The WebSocket class for `socket()` (default `globalThis.WebSocket`; on Node 20 pass the `ws` package's). */
  WebSocket?: WebSocketConstructor;
  /**
   * Writes every call's query string (default: serializeQuery, openapi-fetch's way but for a deepObject
   * parameter with several values, such as `option: { Size: ['M', 'L'] }` of `GET /products`, which
   * openapi-fetch refuses).
   */
  querySerializer?: QuerySerializer<unknown>;
  /**
   * `bearer` (default): the tokens are in `tokens` and sent as `Authorization: Bearer`. `cookie`, for browsers:
   * the service keeps the session's tokens and the guest carts' and orders' secrets in HttpOnly cookies (no
   * secret in script-readable storage); the client sends `X-Session: cookie`, the cookies
   * (`credentials: 'include'`) and the CSRF token on every unsafe call, and `tokens` keeps only the user.
   */
  auth?: 'bearer' | 'cookie';
}

/** What an openapi-fetch call resolves to: the success body as `data`, or the error body as `error`. */
interface CallResult<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/**
 * The envelope's `data` of a success body; `null` for an answer whose `data` is always null (a password reset,
 * a logout): openapi-fetch's types leave a property that can only be null out of the body.
 */
export type DataOf<T> = T extends { data: infer Data } ? Data : null;

/** The guest secrets the client keeps by cart or order id, by the header parameter that carries them. */
const GUEST_TOKENS = { 'X-Cart-Token': 'carts', 'X-Order-Token': 'orders' } as const;
type GuestTokenHeader = keyof typeof GUEST_TOKENS;

/**
 * `paths` with the guest token headers optional where the document requires them (`POST /carts/{id}/claim`):
 * the client sends the tokens it holds itself. A header given by hand is still typed, and wins.
 */
type WithGuestTokensOptional<Operation> = Operation extends {
  parameters: { header: infer Header extends Record<string, unknown> };
}
  ? Omit<Operation, 'parameters'> & {
      parameters: Omit<Operation['parameters'], 'header'> &
        (Record<string, never> extends Omit<Header, GuestTokenHeader>
          ? { header?: Partial<Header> }
          : {
              header: Omit<Header, GuestTokenHeader> & Partial<Pick<Header, GuestTokenHeader & keyof Header>>;
            });
    }
  : Operation;
export type ClientPaths = {
  [Path in keyof paths]: { [Method in keyof paths[Path]]: WithGuestTokensOptional<paths[Path][Method]> };
};

export interface CommerceClient {
  /** The typed openapi-fetch client: paths relative to `baseUrl`, bodies, parameters and answers per status typed. */
  api: Client<ClientPaths>;
  /**
   * Resolves to the envelope's `data` of a successful call (`null` for an answer whose data is always null);
   * throws `CommerceApiError` otherwise.
   */
  data<T extends { code: number }>(call: Promise<CallResult<T>>): Promise<DataOf<T>>;
  /** A list call's `data` and `meta`; throws `CommerceApiError` otherwise. */
  page<T extends { data: unknown[]; meta: unknown }>(
    call: Promise<CallResult<T>>,
  ): Promise<{ data: T['data']; meta: T['meta'] }>;
  session: Session;
  /** `POST /upload` with one file (a Blob or File); answers the stored file's `{filename, original_name, …}`. */
  upload(file: Blob, options?: { filename?: string }): Promise<UploadResult>;
  /** A reconnecting WebSocket on `baseUrl` + `/ws`, authenticated with the session's token. */
  socket(options?: SocketOptions): CommerceSocket;
}

/** Calls that need no bearer token and whose 401 is about their own body, not an expired token. */
const NO_BEARER = new Set(['/login', '/auth/refresh', '/register']);
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
/** The cookie-mode answers that carry a new CSRF token (a login, a refresh, a registration, a guest's secret). */
const ISSUES_CSRF = /^\/(login|register|auth\/refresh|carts|carts\/[^/]+\/checkout)$/;

/**
 * Cookie mode's fetch: `X-Session: cookie` and the cookies on every call, the CSRF token on unsafe ones. The
 * token comes from the answers that issue one, else from `GET /auth/csrf`; a 403 for a stale token fetches it
 * again and retries once.
 */
function cookieFetch(send: typeof fetch, baseUrl: string, pathOf: (url: string) => string): typeof fetch {
  let csrf: Promise<string | null> | undefined;
  const csrfToken = () =>
    (csrf ??= send(`${baseUrl}/auth/csrf`, { credentials: 'include', headers: { 'X-Session': 'cookie' } })
      .then((response) => (response.ok ? response.json() : null))
      .then((body) => (body as { data?: { csrf_token?: string | null } } | null)?.data?.csrf_token ?? null)
      .catch(() => {
        csrf = undefined;
        return null;
      }));
  const bodyOf = (response: Response) =>
    response
      .clone()
      .json()
      .catch(() => null) as Promise<{ data?: { csrf_token?: unknown; details?: unknown } } | null>;

  const call = async (request: Request, retried: boolean): Promise<Response> => {
    const path = pathOf(request.url);
    const unsafe = !SAFE_METHODS.has(request.method);
    const retry = unsafe && !retried ? request.clone() : undefined;
    const headers = new Headers(request.headers);
    headers.set('X-Session', 'cookie');
    const token = unsafe ? await csrfToken() : null;
    if (token !== null) headers.set('X-CSRF-Token', token);
    const response = await send(new Request(request, { headers, credentials: 'include' }));
    if (unsafe && response.ok && ISSUES_CSRF.test(path)) {
      const issued = (await bodyOf(response))?.data?.csrf_token;
      if (typeof issued === 'string') csrf = Promise.resolve(issued);
    }
    // The session's token ends with it (a guest cart's may take over).
    if (path === '/logout') csrf = undefined;
    if (response.status === 403 && retry !== undefined) {
      const details = (await bodyOf(response))?.data?.details;
      if (typeof details === 'string' && details.startsWith('CSRF token')) {
        csrf = undefined;
        return call(retry, true);
      }
    }
    return response;
  };
  return (input, init) => call(new Request(input, init), false);
}
/** An access token this close to its expiry is refreshed before the call rather than after its 401. */
const EXPIRY_MARGIN_MS = 30_000;

export function createCommerceClient(options: CommerceClientOptions): CommerceClient {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const store = options.tokens ?? memoryTokenStore();
  const cookies = options.auth === 'cookie';
  const basePath = new URL(baseUrl, 'http://relative.invalid').pathname.replace(/\/+$/, '');
  const pathOf = (url: string) => new URL(url, 'http://relative.invalid').pathname.slice(basePath.length);
  const fetchOption: typeof fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const send = cookies ? cookieFetch(fetchOption, baseUrl, pathOf) : fetchOption;

  const post = async (path: string, body: unknown) => {
    const response = await send(`${baseUrl}${path}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // Not the API's envelope: CommerceApiError keeps the text.
    }
    return { status: response.status, body: parsed };
  };

  const locks = (globalThis as { navigator?: { locks?: LockManagerLike } }).navigator?.locks;
  const session = createSession({
    store,
    post,
    locks,
    cookies,
    revoke: async () => {
      const { response, error } = await api.POST('/logout');
      return { status: response.status, body: error };
    },
  });

  const updateStore = async (update: (tokens: Tokens) => Tokens) =>
    store.set(update((await store.get()) ?? {}));

  /**
   * The guest tokens. A call whose operation takes X-Cart-Token or X-Order-Token (by the API's document) is sent
   * the one the store holds for the `{id}` of its path; the answers that show a token once (an anonymous cart's
   * creation, a guest checkout) are remembered, and a claimed cart's token is dropped.
   */
  const guestTokens: Middleware = {
    async onRequest({ request, schemaPath, params }) {
      const id = params.path?.id;
      const accepted = headerParameters[`${request.method} ${schemaPath}`];
      if (id === undefined || accepted === undefined) return undefined;
      const tokens = (await store.get()) ?? {};
      const headers = new Headers(request.headers);
      for (const header of accepted) {
        if (!(header in GUEST_TOKENS) || headers.has(header)) continue;
        const secret = tokens[GUEST_TOKENS[header as GuestTokenHeader]]?.[String(id)];
        if (secret !== undefined) headers.set(header, secret);
      }
      return new Request(request, { headers });
    },
    async onResponse({ request, schemaPath, params, response }) {
      if (request.method !== 'POST' || !response.ok) return undefined;
      if (schemaPath === '/carts/{id}/claim') {
        // The cart is the customer's now (or merged into theirs): its token has stopped working.
        const claimed = String(params.path?.id);
        await updateStore(({ carts = {}, ...rest }) => {
          const { [claimed]: _claimed, ...others } = carts;
          return { ...rest, carts: others };
        });
        return undefined;
      }
      if (schemaPath !== '/carts' && schemaPath !== '/carts/{id}/checkout') return undefined;
      const body = (await response
        .clone()
        .json()
        .catch(() => ({}))) as { data?: { id?: string | number; cart_token?: string; order_token?: string } };
      const id = body.data?.id;
      if (id === undefined) return undefined;
      if (body.data?.cart_token !== undefined) {
        const secret = body.data.cart_token;
        await updateStore((tokens) => ({ ...tokens, carts: { ...tokens.carts, [id]: secret } }));
      }
      if (body.data?.order_token !== undefined) {
        const secret = body.data.order_token;
        await updateStore((tokens) => ({ ...tokens, orders: { ...tokens.orders, [id]: secret } }));
      }
      return undefined;
    },
  };

  /**
   * Every call of `api`: the bearer token, a refresh just before the token expires, and after a 401 one refresh
   * (shared with any other call that met one) and one retry.
   */
  const authorizedFetch = async (input: Request): Promise<Response> => {
    const path = pathOf(input.url);
    const tokens = (await store.get()) ?? {};
    const headers = new Headers(input.headers);
    let bearer = tokens.token;
    // A cookie session may exist that this client has not seen (after a reload): a 401 tries its refresh too.
    const authorize =
      !NO_BEARER.has(path) && !headers.has('Authorization') && (cookies || bearer !== undefined);
    const expiring = tokens.expires_at !== undefined && tokens.expires_at - Date.now() < EXPIRY_MARGIN_MS;
    if (authorize && bearer !== undefined && expiring) {
      bearer = (await session.refreshAfter(tokens.refresh_token).catch(() => null)) ?? bearer;
    }
    if (authorize && !cookies) headers.set('Authorization', `Bearer ${bearer}`);
    const retry = authorize ? input.clone() : undefined;
    let response = await send(new Request(input, { headers }));
    if (response.status === 401 && retry !== undefined) {
      const fresh = await session.refreshAfter(tokens.refresh_token).catch(() => null);
      if (fresh !== null && (cookies || fresh !== bearer)) {
        if (!cookies) headers.set('Authorization', `Bearer ${fresh}`);
        response = await send(new Request(retry, { headers }));
      }
    }
    return response;
  };

  const api = createClient<ClientPaths>({
    baseUrl,
    fetch: authorizedFetch,
    querySerializer: options.querySerializer ?? serializeQuery,
  });
  api.use(guestTokens);

  const data = async <T extends { code: number }>(call: Promise<CallResult<T>>): Promise<DataOf<T>> => {
    const { data: body, error, response } = await call;
    if (!response.ok || body === undefined) throw new CommerceApiError(response.status, error);
    // The answer's `data`, null included (the body's type may leave a null-only `data` out).
    return (body as { data?: unknown }).data as DataOf<T>;
  };

  return {
    api,
    data,
    async page(call) {
      const { data: body, error, response } = await call;
      if (!response.ok || body === undefined) throw new CommerceApiError(response.status, error);
      return { data: body.data, meta: body.meta };
    },
    session,
    async upload(file, { filename } = {}) {
      const form = new FormData();
      const name = filename ?? (file as { name?: string }).name ?? 'upload';
      form.append('file', file, name);
      return data(
        api.POST('/upload', {
          // The typed body describes the part; the form is what is sent.
          body: { file: name },
          bodySerializer: () => form,
        }),
      );
    },
    socket(socketOptions = {}) {
      return openSocket({
        url: `${baseUrl}/ws`,
        session,
        WebSocket: options.WebSocket,
        ...socketOptions,
      });
    },
  };
}
