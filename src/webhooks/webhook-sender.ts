import { createHmac, randomBytes } from 'node:crypto';
import { lookup } from 'node:dns/promises';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { nonPublicKind } from './address-rules.js';

const SECRET_PREFIX = 'whsec_';

/** A new signing secret: `whsec_` + base64 of 32 random bytes (the Standard Webhooks form). */
export function newSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64');
}

/**
 * The `webhook-signature` header of the Standard Webhooks scheme: `v1,` + base64 of the HMAC-SHA256 of
 * `id.timestamp.body`, keyed with the secret's bytes (the base64 after `whsec_`).
 */
export function signature(secret: string, id: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

export interface ResolvedAddress {
  address: string;
  family: number;
}

/** Every address of a host name (dns.lookup, as a connection would see them). */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

export const systemResolver: Resolver = (hostname) => lookup(hostname, { all: true, verbatim: true });

/** A URL the rules refuse; `rule` and the message go into a 400 at registration and `last_error` at delivery. */
export class RefusedUrlError extends Error {
  constructor(
    readonly rule: 'publicAddress' | 'resolvable',
    message: string,
  ) {
    super(message);
  }
}

/**
 * The addresses a webhook URL's host stands for, each checked: unless private networks are allowed, any
 * non-public one refuses the URL (a name with one public and one loopback address is refused too).
 */
export async function checkedAddresses(
  url: URL,
  resolver: Resolver,
  allowPrivateNetworks: boolean,
): Promise<ResolvedAddress[]> {
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  let addresses: ResolvedAddress[];
  if (isIP(host) !== 0) {
    addresses = [{ address: host, family: isIP(host) }];
  } else {
    try {
      addresses = await resolver(host);
    } catch {
      addresses = [];
    }
    if (addresses.length === 0) {
      throw new RefusedUrlError('resolvable', `url host ${host} does not resolve to an address`);
    }
  }
  if (!allowPrivateNetworks) {
    for (const { address } of addresses) {
      const kind = nonPublicKind(address);
      if (kind !== undefined) {
        throw new RefusedUrlError(
          'publicAddress',
          `url must reach a public address: ${host} is ${address === host ? '' : `${address}, `}a ${kind} address`,
        );
      }
    }
  }
  return addresses;
}

export interface SendResult {
  /** The HTTP status of a complete answer; absent when none came. */
  statusCode?: number;
  /** Why the attempt failed (absent on a 2xx). */
  error?: string;
}

/**
 * POSTs `body` to `url` and waits for the whole answer, at most `timeoutMs`. The connection goes to one of the
 * addresses already checked (the lookup hands them over instead of asking DNS again, so an answer that changes
 * between the check and the connection cannot redirect it); redirects are not followed.
 */
export function post(
  url: URL,
  addresses: ResolvedAddress[],
  headers: Record<string, string>,
  body: string,
  timeoutMs: number,
): Promise<SendResult> {
  const checkedLookup: LookupFunction = (_hostname, options, callback) => {
    if (options.all) callback(null, addresses);
    else callback(null, addresses[0].address, addresses[0].family);
  };
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve) => {
    let settled = false;
    const finish = (result: SendResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      request.destroy();
      resolve(result);
    };
    const request = send(url, {
      method: 'POST',
      agent: false,
      lookup: checkedLookup,
      headers: { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
    });
    const timer = setTimeout(() => finish({ error: `no complete answer within ${timeoutMs} ms` }), timeoutMs);
    request.on('response', (response: IncomingMessage) => {
      const statusCode = response.statusCode ?? 0;
      response.resume(); // the answer's body is not kept, only awaited
      response.on('end', () =>
        finish(
          statusCode >= 200 && statusCode < 300
            ? { statusCode }
            : { statusCode, error: `answered HTTP ${statusCode}` },
        ),
      );
      response.on('error', (error) => finish({ statusCode, error: error.message }));
    });
    request.on('error', (error) => finish({ error: error.message }));
    request.end(body);
  });
}
