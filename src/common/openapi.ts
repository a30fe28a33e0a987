import { applyDecorators, Type } from '@nestjs/common';
import {
  ApiExtraModels,
  ApiProperty,
  ApiPropertyOptional,
  ApiResponse,
  getSchemaPath,
} from '@nestjs/swagger';
import type { OpenAPIObject } from '@nestjs/swagger';
import { STATUS_CODES } from 'node:http';
import type { FieldError } from './validation.js';

/*
 * Shared pieces of the OpenAPI document: the envelope, the error envelopes and the response headers are
 * components, referenced by every operation through @ApiEnvelope() and @ApiErrors().
 */

export class PageMetaDto {
  @ApiProperty({
    type: 'integer',
    minimum: 1,
    nullable: true,
    example: 1,
    description: 'null on a page read by `cursor`',
  })
  page: number | null;

  @ApiProperty({ type: 'integer', minimum: 1, example: 10 }) page_size: number;
  @ApiProperty({
    type: 'integer',
    format: 'int64',
    minimum: 0,
    example: 42,
    description:
      'Number of records the filter matches, exact on every list but a product search, whose total is exact ' +
      'up to SEARCH_TOTAL_LIMIT (10 000) and then that limit (`total_exact`); the product list keeps it per ' +
      'filter until the catalogue changes (docs/api.md, Lists)',
  })
  total: number;

  @ApiPropertyOptional({
    example: true,
    description:
      'Product searches only (on every search page): true when `total` is the exact number of matches, false ' +
      'when there are more than `total` (SEARCH_TOTAL_LIMIT). Absent on lists without `search`.',
  })
  total_exact?: boolean;

  @ApiProperty({ type: 'integer', minimum: 0, example: 5 }) total_page: number;

  @ApiPropertyOptional({
    type: 'string',
    nullable: true,
    example: 'eyJzIjoiaWQiLCJpIjoxMH0',
    description:
      'Lists with keyset pagination (products): pass as `cursor` for the next page; null on the last page ' +
      '(and with sort=relevance)',
  })
  next_cursor?: string | null;
}

export class FieldErrorDto implements FieldError {
  @ApiProperty({
    example: 'items.0.quantity',
    description: 'Path of the field (array items by index); "" when the problem is the request as a whole',
  })
  field: string;

  @ApiProperty({ example: 'min', description: 'The rule broken, e.g. isInt, min, maxLength, unique, json' })
  rule: string;

  @ApiProperty({ example: 'items.0.quantity must not be less than 1' })
  message: string;
}

export class ErrorDetailsDto {
  @ApiProperty({ example: 'Product 7 not found' }) details: string;
}

export class ValidationErrorDetailsDto {
  @ApiProperty({
    example: 'items.0.quantity must not be less than 1',
    description: 'The messages of `errors`, joined with "; "',
  })
  details: string;

  @ApiProperty({ type: [FieldErrorDto], description: 'One entry per problem found in the request' })
  errors: FieldErrorDto[];
}

export class ErrorEnvelopeDto {
  @ApiProperty({ type: 'integer', example: 404, description: 'Equals the HTTP status' }) code: number;
  @ApiProperty({ example: 'Not Found' }) message: string;
  @ApiProperty({ type: ErrorDetailsDto }) data: ErrorDetailsDto;
}

export class ValidationErrorEnvelopeDto {
  @ApiProperty({ type: 'integer', enum: [400], example: 400 }) code: number;
  @ApiProperty({ example: 'Bad Request' }) message: string;
  @ApiProperty({ type: ValidationErrorDetailsDto }) data: ValidationErrorDetailsDto;
}

export type ResponseHeaderName =
  | 'X-Request-Id'
  | 'X-RateLimit-Limit'
  | 'X-RateLimit-Remaining'
  | 'X-RateLimit-Reset'
  | 'Retry-After'
  | 'Idempotent-Replayed';

/** Response headers, as `components.headers` (added to the document by addOpenApiComponents). */
const HEADERS: Record<
  ResponseHeaderName,
  { description: string; schema: { type: string; enum?: string[] } }
> = {
  'X-Request-Id': {
    description: "Correlation id: the request's own X-Request-Id when sane, otherwise a new UUID",
    schema: { type: 'string' },
  },
  'X-RateLimit-Limit': {
    description: 'Requests allowed per window in the bucket that counted this request',
    schema: { type: 'integer' },
  },
  'X-RateLimit-Remaining': {
    description: 'Requests left in the window of that bucket',
    schema: { type: 'integer' },
  },
  'X-RateLimit-Reset': {
    description: 'Seconds until the window of that bucket starts again',
    schema: { type: 'integer' },
  },
  'Retry-After': { description: 'Seconds to wait before retrying', schema: { type: 'integer' } },
  'Idempotent-Replayed': {
    description:
      '`true` when an Idempotency-Key matched an earlier order, or the cart was checked out already: that order is returned',
    schema: { type: 'string', enum: ['true'] },
  },
};

const COMMON_HEADERS: ResponseHeaderName[] = [
  'X-Request-Id',
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
];

function headerRefs(names: ResponseHeaderName[]) {
  return Object.fromEntries(names.map((name) => [name, { $ref: `#/components/headers/${name}` }]));
}

/** Adds the shared response headers to the generated document. */
export function addOpenApiComponents(document: OpenAPIObject): OpenAPIObject {
  document.components = { ...document.components, headers: { ...HEADERS } };
  return document;
}

/**
 * Documents a success response: the envelope around `model` (an array of it, with the required `meta`,
 * when `list`; `null` when `model` is null, as for a DELETE).
 */
export function ApiEnvelope(
  model: Type<unknown> | null,
  options: {
    status?: 200 | 201;
    list?: boolean;
    /** `data` is a plain array (no pages). */
    array?: boolean;
    description?: string;
    headers?: ResponseHeaderName[];
    /** A list's `meta` when it carries more than the page's (a subclass of PageMetaDto). */
    meta?: Type<PageMetaDto>;
  } = {},
) {
  const status = options.status ?? 200;
  const list = options.list === true;
  const meta = options.meta ?? PageMetaDto;
  const data =
    model === null
      ? { type: 'object', nullable: true, enum: [null], example: null, description: 'Always null' }
      : list || options.array === true
        ? { type: 'array', items: { $ref: getSchemaPath(model) } }
        : { $ref: getSchemaPath(model) };
  return applyDecorators(
    ApiExtraModels(meta, ...(model === null ? [] : [model])),
    ApiResponse({
      status,
      description: options.description ?? STATUS_CODES[status],
      headers: headerRefs([...COMMON_HEADERS, ...(options.headers ?? [])]),
      schema: {
        type: 'object',
        required: ['code', 'message', 'data', ...(list ? ['meta'] : [])],
        properties: {
          code: { type: 'integer', enum: [status], example: status },
          message: { type: 'string', example: STATUS_CODES[status] },
          data,
          ...(list ? { meta: { $ref: getSchemaPath(meta) } } : {}),
        },
      },
    }),
  );
}

type ErrorCode = 400 | 401 | 403 | 404 | 429;

/** The example of an error response: a 400's field error, or another code's `details`. */
export interface ErrorExamples {
  400?: FieldError;
  401?: string;
  403?: string;
  404?: string;
}

const DEFAULT_EXAMPLES: Required<ErrorExamples> & { 429: string; 500: string } = {
  400: { field: '', rule: 'json', message: 'Malformed JSON in request body' },
  401: 'Missing bearer token',
  403: 'Insufficient permission',
  404: 'Resource not found',
  429: 'Too many requests: at most 120 per 60 s, retry in 12 s',
  500: 'Internal server error',
};

/**
 * Documents the error responses `codes` (and 500) with the shared error envelopes: 400 with `data.errors`,
 * the others with `data.details`; 429 also with `Retry-After`. `examples` gives the endpoint's own
 * (true) example of a 400 field error or of another code's details.
 */
export function ApiErrors(...args: Array<ErrorCode | ErrorExamples>) {
  const codes = args.filter((arg): arg is ErrorCode => typeof arg === 'number');
  const examples = { ...DEFAULT_EXAMPLES, ...args.find((arg) => typeof arg === 'object') };
  return applyDecorators(
    ApiExtraModels(ErrorEnvelopeDto, ValidationErrorEnvelopeDto),
    ...[...codes, 500 as const].map((code) => {
      const headers = headerRefs(code === 429 ? [...COMMON_HEADERS, 'Retry-After'] : COMMON_HEADERS);
      const message = STATUS_CODES[code];
      if (code === 400) {
        const error = examples[400];
        return ApiResponse({
          status: 400,
          description: 'A rule of the request is broken; `data.errors` lists every problem',
          headers,
          type: ValidationErrorEnvelopeDto,
          example: { code, message, data: { details: error.message, errors: [error] } },
        });
      }
      return ApiResponse({
        status: code,
        description: message,
        headers,
        type: ErrorEnvelopeDto,
        example: { code, message, data: { details: examples[code] } },
      });
    }),
  );
}
