import { CommerceApiError } from './errors.js';
import type { components } from './schema.js';
import type { SessionUser, Tokens, TokenStore } from './tokens.js';

type LoginBody = components['schemas']['LoginDto'];
type LoginAnswer = components['schemas']['LoginResponseDto'];
type RefreshAnswer = components['schemas']['TokensDto'];

/** The Web Locks API where the platform has it (browsers); one lock name for every tab of the origin. */
export interface LockManagerLike {
  request<T>(name: string, callback: () => Promise<T>): Promise<T>;
}
export const REFRESH_LOCK = 'commerce-sdk-refresh';
/**
 * What a cookie session's store holds as its `token`: the access token is in an HttpOnly cookie, which the browser
 * sends itself, so the client only knows that there is one.
 */
export const COOKIE_TOKEN = 'cookie';

/** The signed-in user and the session's tokens: login, refresh (one at a time), logout. */
export interface Session {
  /** The signed-in user (as the login answered it), or null. */
  readonly user: SessionUser | null;
  /** Logs in with `POST /login`, keeps the tokens and the user in the token store, and answers the user. */
  login(credentials: LoginBody): Promise<SessionUser>;
  /**
   * Exchanges the refresh token for new tokens (`POST /auth/refresh`). One refresh runs at a time: in this
   * page (one promise) and across tabs (Web Locks, when present). A refresh token another tab has already
   * exchanged is not sent again (that would revoke the session): the tokens it stored are used instead.
   * A 401 ends the session here too (the store is cleared) and is thrown.
   */
  refresh(): Promise<void>;
  /** Revokes the session (`POST /logout`) and clears the store's session, whatever the answer. */
  logout(): Promise<void>;
  /** Called with the user after a login, a logout, an ended session or a change from another tab. */
  onChange(listener: (user: SessionUser | null) => void): () => void;
}

/** What the client and the socket need of the session beyond its public face. */
export interface SessionInternals extends Session {
  /** The stored tokens, read again (another tab may have changed them). */
  tokens(): Promise<Tokens | null>;
  /**
   * Refreshes after `refreshToken` was found wanting (a 401, an expiring token); resolves to the access token
   * to use now, or null when the session has ended.
   */
  refreshAfter(refreshToken: string | undefined): Promise<string | null>;
  /** Called whenever the stored access token changes (refresh here or in another tab, login, logout). */
  onTokens(listener: (token: string | null) => void): () => void;
}

export interface SessionDependencies {
  store: TokenStore;
  /** POST a JSON body to a path of the API, without the session's bearer token; answers the status and body. */
  post(path: string, body: unknown): Promise<{ status: number; body: unknown }>;
  /** `POST /logout` as any call of the API: with the bearer token, refreshed and retried after a 401. */
  revoke(): Promise<{ status: number; body: unknown }>;
  locks?: LockManagerLike;
  /** A cookie session: the service keeps the tokens in HttpOnly cookies, the store only the user and expiry. */
  cookies?: boolean;
}

const isSuccess = (status: number) => status >= 200 && status < 300;

export function createSession({
  store,
  post,
  revoke,
  locks,
  cookies = false,
}: SessionDependencies): SessionInternals {
  let user: SessionUser | null = null;
  let token: string | null = null;
  let inFlight: Promise<string | null> | undefined;
  const userListeners = new Set<(user: SessionUser | null) => void>();
  const tokenListeners = new Set<(token: string | null) => void>();

  /** Brings `user` and `token` in line with the store, telling the listeners what changed. */
  const sync = (tokens: Tokens | null) => {
    const nextUser = tokens?.token === undefined ? null : (tokens.user ?? null);
    const nextToken = tokens?.token ?? null;
    const userChanged = JSON.stringify(nextUser) !== JSON.stringify(user);
    const tokenChanged = nextToken !== token;
    user = nextUser;
    token = nextToken;
    if (userChanged) for (const listener of userListeners) listener(user);
    if (tokenChanged) for (const listener of tokenListeners) listener(token);
  };

  const write = async (update: (tokens: Tokens) => Tokens | null) => {
    const next = update((await store.get()) ?? {});
    await store.set(next);
    sync(next);
  };
  /** Keeps a login's or a refresh's tokens (and the login's user) beside what else the store holds. */
  const keep = (answer: RefreshAnswer, signedIn?: SessionUser) =>
    write((stored) => ({
      ...stored,
      // A cookie session's answer has no tokens: they are in the service's HttpOnly cookies.
      token: cookies ? COOKIE_TOKEN : answer.token,
      refresh_token: cookies ? undefined : answer.refresh_token,
      expires_at: Date.now() + answer.expires_in * 1000,
      ...(signedIn === undefined ? {} : { user: signedIn }),
    }));
  const withoutSession = ({ carts, orders }: Tokens): Tokens | null =>
    carts === undefined && orders === undefined ? null : { carts, orders };

  // A synchronous store (memory, local storage) gives the user at once, before any await.
  const initial = store.get();
  if (!(initial instanceof Promise)) sync(initial);
  else void initial.then(sync);
  store.subscribe?.(() => void Promise.resolve(store.get()).then(sync));

  const exchange = async (stale: string | undefined): Promise<string | null> => {
    const tokens = await store.get();
    sync(tokens);
    const current = tokens?.refresh_token;
    if (current === undefined && !cookies) return null;
    // Another tab (or an earlier refresh here) has rotated the tokens since this one failed: use its tokens.
    if (!cookies && stale !== undefined && current !== stale) return tokens?.token ?? null;
    // A cookie session's refresh cookie goes with the call (also one this client has not seen, after a reload).
    const { status, body } = await post('/auth/refresh', cookies ? {} : { refresh_token: current });
    if (!isSuccess(status)) {
      if (status === 401) await write(withoutSession);
      throw new CommerceApiError(status, body);
    }
    const answer = (body as { data: RefreshAnswer }).data;
    await keep(answer);
    return cookies ? COOKIE_TOKEN : answer.token;
  };

  const refreshAfter = (stale: string | undefined): Promise<string | null> => {
    inFlight ??= (locks ? locks.request(REFRESH_LOCK, () => exchange(stale)) : exchange(stale)).finally(
      () => (inFlight = undefined),
    );
    return inFlight;
  };

  return {
    get user() {
      return user;
    },
    async login(credentials) {
      const { status, body } = await post('/login', credentials);
      if (!isSuccess(status)) throw new CommerceApiError(status, body);
      const answer = (body as { data: LoginAnswer }).data;
      await keep(answer, answer.user);
      return answer.user;
    },
    async refresh() {
      const tokens = await store.get();
      const token = await refreshAfter(tokens?.refresh_token);
      if (token === null) throw new CommerceApiError(401, 'Not signed in');
    },
    async logout() {
      const tokens = await store.get();
      try {
        if (tokens?.token !== undefined || cookies) {
          // An expired access token is refreshed first, so that the session really ends on the server.
          const { status, body } = await revoke();
          // 401: the session had ended already, which is what was asked.
          if (!isSuccess(status) && status !== 401) throw new CommerceApiError(status, body);
        }
      } finally {
        await write(withoutSession);
      }
    },
    onChange(listener) {
      userListeners.add(listener);
      return () => userListeners.delete(listener);
    },
    async tokens() {
      const tokens = await store.get();
      sync(tokens);
      return tokens;
    },
    refreshAfter,
    onTokens(listener) {
      tokenListeners.add(listener);
      return () => tokenListeners.delete(listener);
    },
  };
}
