/** One cookie as a Set-Cookie header set it, with its attributes in lower case. */
export interface SetCookie {
  name: string;
  value: string;
  attributes: Record<string, string | true>;
}

export function parseSetCookie(header: string): SetCookie {
  const [pair, ...rest] = header.split(';');
  const at = pair.indexOf('=');
  const attributes: Record<string, string | true> = {};
  for (const part of rest) {
    const [key, ...value] = part.trim().split('=');
    attributes[key.toLowerCase()] = value.length === 0 ? true : value.join('=');
  }
  return { name: pair.slice(0, at).trim(), value: pair.slice(at + 1).trim(), attributes };
}

/** The Set-Cookie headers of a supertest or fetch response. */
export function setCookiesOf(response: { headers: unknown }): SetCookie[] {
  const headers = response.headers as Headers | Record<string, string | string[] | undefined>;
  const raw =
    typeof (headers as Headers).getSetCookie === 'function'
      ? (headers as Headers).getSetCookie()
      : ((headers as Record<string, string | string[] | undefined>)['set-cookie'] ?? []);
  return (Array.isArray(raw) ? raw : [raw]).map(parseSetCookie);
}

/**
 * A browser's cookie store, as far as this service's cookies need one: kept by name and path, expired by
 * `Max-Age=0` or a past `Expires`, sent to the paths under their `Path`.
 */
export class CookieJar {
  private readonly cookies = new Map<string, { value: string; path: string }>();

  take(response: { headers: unknown }): SetCookie[] {
    const set = setCookiesOf(response);
    for (const cookie of set) {
      const path = typeof cookie.attributes.path === 'string' ? cookie.attributes.path : '/';
      const key = `${cookie.name} ${path}`;
      const expires = cookie.attributes.expires;
      const gone =
        cookie.attributes['max-age'] === '0' ||
        (typeof expires === 'string' && Date.parse(expires) <= Date.now());
      if (gone) this.cookies.delete(key);
      else this.cookies.set(key, { value: cookie.value, path });
    }
    return set;
  }

  /** The Cookie header a browser sends to `path`. */
  header(path: string): string {
    return [...this.cookies.entries()]
      .filter(
        ([, { path: scope }]) => path === scope || path.startsWith(scope.endsWith('/') ? scope : `${scope}/`),
      )
      .map(([key, { value }]) => `${key.split(' ')[0]}=${value}`)
      .join('; ');
  }

  value(name: string): string | undefined {
    return [...this.cookies.entries()].find(([key]) => key.split(' ')[0] === name)?.[1].value;
  }

  set(name: string, value: string, path = '/'): void {
    this.cookies.set(`${name} ${path}`, { value, path });
  }

  /** A fetch that sends and keeps this jar's cookies, as a browser would for its own origin. */
  fetch(): typeof fetch {
    return async (input, init) => {
      const request = new Request(input, init);
      const headers = new Headers(request.headers);
      const cookie = this.header(new URL(request.url).pathname);
      if (cookie !== '') headers.set('Cookie', cookie);
      const response = await globalThis.fetch(new Request(request, { headers }));
      this.take(response);
      return response;
    };
  }
}
