import type { components, paths } from './schema.js';

type Method = 'get' | 'put' | 'post' | 'delete' | 'patch';
type ResponsesOf<P extends keyof paths, M extends Method> = paths[P][M] extends { responses: infer R }
  ? R
  : never;

/**
 * The error answers an operation declares, by status: `ErrorsOf<'/login', 'post'>[400]` is the validation
 * envelope with `data.errors`, `ErrorsOf<'/login', 'post'>[401]` the envelope with `data.details`.
 */
export type ErrorsOf<P extends keyof paths, M extends Method> = {
  [S in keyof ResponsesOf<P, M> as S extends 200 | 201 ? never : S]: ResponsesOf<P, M>[S] extends {
    content: { 'application/json': infer Body };
  }
    ? Body
    : never;
};

export type FieldError = components['schemas']['FieldErrorDto'];
/** The envelope of every error answer: `data.details`, and on a 400 `data.errors`. */
export type ErrorEnvelope =
  components['schemas']['ErrorEnvelopeDto'] | components['schemas']['ValidationErrorEnvelopeDto'];

/**
 * An answer that is not a success: the HTTP status, the envelope's `code` and `message` (the reason phrase:
 * `Bad Request`, `Not Found`, …), `details` (its `data.details`: what went wrong, for a person), `fields` (one
 * entry per broken rule on a 400, for a form to show beside each field; `[]` otherwise) and the whole envelope
 * as `body`. An answer that is not the API's envelope (a proxy's error page) keeps its text in `details`.
 */
export class CommerceApiError extends Error {
  readonly status: number;
  readonly code: number;
  /** `data.details`: what went wrong, for a person. */
  readonly details: string;
  readonly fields: FieldError[];
  readonly body: ErrorEnvelope;

  constructor(status: number, body: unknown) {
    const envelope = asEnvelope(status, body);
    super(envelope.message);
    this.name = 'CommerceApiError';
    this.status = status;
    this.code = envelope.code;
    this.details = envelope.data.details;
    this.fields = 'errors' in envelope.data ? envelope.data.errors : [];
    this.body = envelope;
  }
}

const REASONS: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
};

function asEnvelope(status: number, body: unknown): ErrorEnvelope {
  if (typeof body === 'object' && body !== null) {
    const { code, message, data } = body as Record<string, unknown>;
    if (
      typeof code === 'number' &&
      typeof message === 'string' &&
      typeof data === 'object' &&
      data !== null &&
      typeof (data as { details?: unknown }).details === 'string'
    ) {
      return body as ErrorEnvelope;
    }
  }
  const details = typeof body === 'string' && body !== '' ? body.slice(0, 500) : `HTTP ${status}`;
  return { code: status, message: REASONS[status] ?? 'Error', data: { details } };
}
