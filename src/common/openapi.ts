import { applyDecorators, Type } from '@nestjs/common';
import { ApiExtraModels, ApiResponse, getSchemaPath } from '@nestjs/swagger';
import { STATUS_CODES } from 'node:http';

const pageMetaSchema = {
  type: 'object',
  properties: {
    page: { type: 'integer', example: 1 },
    page_size: { type: 'integer', example: 10 },
    total: { type: 'integer', example: 42 },
    total_page: { type: 'integer', example: 5 },
  },
};

function envelopeSchema(code: number, data: object, meta = false) {
  return {
    type: 'object',
    required: ['code', 'message', 'data'],
    properties: {
      code: { type: 'integer', example: code },
      message: { type: 'string', example: STATUS_CODES[code] },
      data,
      ...(meta ? { meta: pageMetaSchema } : {}),
    },
  };
}

/** Documents a success response: the envelope around `model` (an array of it with `meta` when `list`). */
export function ApiEnvelope(
  model: Type<unknown> | null,
  options: { status?: 200 | 201; list?: boolean; description?: string } = {},
) {
  const status = options.status ?? 200;
  const data =
    model === null
      ? { type: 'object', nullable: true, example: null }
      : options.list
        ? { type: 'array', items: { $ref: getSchemaPath(model) } }
        : { $ref: getSchemaPath(model) };
  return applyDecorators(
    ...(model === null ? [] : [ApiExtraModels(model)]),
    ApiResponse({
      status,
      description: options.description ?? STATUS_CODES[status],
      schema: envelopeSchema(status, data, options.list === true),
    }),
  );
}

const ERROR_EXAMPLES: Record<number, string> = {
  400: 'page_size must not be greater than 100',
  401: 'Missing bearer token',
  403: 'Insufficient permission',
  404: 'Resource not found',
  429: 'Too many requests: at most 120 per 60 s, retry in 12 s',
};

/** Documents error responses in the envelope with `data.details`. */
export function ApiErrors(...codes: Array<400 | 401 | 403 | 404 | 429>) {
  return applyDecorators(
    ...[...codes, 500].map((code) =>
      ApiResponse({
        status: code,
        description: STATUS_CODES[code],
        schema: envelopeSchema(code, {
          type: 'object',
          properties: {
            details: { type: 'string', example: ERROR_EXAMPLES[code] ?? 'Internal server error' },
          },
        }),
      }),
    ),
  );
}
