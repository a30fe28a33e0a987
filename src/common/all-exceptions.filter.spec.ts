import { beforeEach, describe, expect, it, jest } from '@jest/globals';
import {
  ArgumentsHost,
  BadRequestException,
  ConflictException,
  Logger,
  NotFoundException,
  PayloadTooLargeException,
  ServiceUnavailableException,
} from '@nestjs/common';
import { ThrottlerException } from '@nestjs/throttler';
import { AllExceptionsFilter } from './all-exceptions.filter.js';
import { ValidationFailedException } from './validation.js';

function capture() {
  const sent: { status?: number; body?: unknown } = {};
  const response = {
    headersSent: false,
    status(code: number) {
      sent.status = code;
      return this;
    },
    json(body: unknown) {
      sent.body = body;
      return this;
    },
  };
  const host = {
    getType: () => 'http',
    switchToHttp: () => ({
      getRequest: () => ({ id: 'req-1', method: 'GET', path: '/api/v1/x' }),
      getResponse: () => response,
    }),
  } as unknown as ArgumentsHost;
  return { host, sent };
}

describe('AllExceptionsFilter', () => {
  const filter = new AllExceptionsFilter();
  let errorLog: ReturnType<typeof jest.spyOn>;

  beforeEach(() => {
    errorLog = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
  });

  it('puts every field error in data.errors and their messages, joined, in data.details', () => {
    const { host, sent } = capture();
    filter.catch(
      new ValidationFailedException([
        { field: 'page', rule: 'isInt', message: 'page must be an integer number' },
        { field: 'page_size', rule: 'max', message: 'page_size must not be greater than 100' },
      ]),
      host,
    );
    expect(sent).toEqual({
      status: 400,
      body: {
        code: 400,
        message: 'Bad Request',
        data: {
          details: 'page must be an integer number; page_size must not be greater than 100',
          errors: [
            { field: 'page', rule: 'isInt', message: 'page must be an integer number' },
            { field: 'page_size', rule: 'max', message: 'page_size must not be greater than 100' },
          ],
        },
      },
    });
  });

  it('gives any other 400 one entry for the whole request (field "")', () => {
    const { host, sent } = capture();
    filter.catch(new BadRequestException('Product 7 is not available'), host);
    expect(sent.body).toEqual({
      code: 400,
      message: 'Bad Request',
      data: {
        details: 'Product 7 is not available',
        errors: [{ field: '', rule: 'invalid', message: 'Product 7 is not available' }],
      },
    });
  });

  it('keeps 404 and 429 with their own message', () => {
    const notFound = capture();
    filter.catch(new NotFoundException('Product 7 not found'), notFound.host);
    expect(notFound.sent.body).toEqual({
      code: 404,
      message: 'Not Found',
      data: { details: 'Product 7 not found' },
    });
    const throttled = capture();
    filter.catch(new ThrottlerException('slow down'), throttled.host);
    expect(throttled.sent.status).toBe(429);
    expect(throttled.sent.body).toEqual({
      code: 429,
      message: 'Too Many Requests',
      data: { details: 'slow down' },
    });
  });

  it("maps statuses outside the API's set to 400 or 500", () => {
    for (const [exception, code] of [
      [new ConflictException('dup'), 400],
      [new PayloadTooLargeException('big'), 400],
      [new ServiceUnavailableException('db down'), 500],
    ] as const) {
      const { host, sent } = capture();
      filter.catch(exception, host);
      expect(sent.status).toBe(code);
      expect((sent.body as { code: number }).code).toBe(code);
    }
  });

  it('maps body-parser errors (malformed JSON, too large) to 400', () => {
    const { host, sent } = capture();
    filter.catch(
      Object.assign(new SyntaxError('Unexpected token'), {
        status: 400,
        expose: true,
        type: 'entity.parse.failed',
      }),
      host,
    );
    expect(sent.body).toEqual({
      code: 400,
      message: 'Bad Request',
      data: {
        details: 'Malformed JSON in request body',
        errors: [{ field: '', rule: 'json', message: 'Malformed JSON in request body' }],
      },
    });
  });

  it('hides unknown errors behind a generic 500 and logs them with the request id', () => {
    const { host, sent } = capture();
    filter.catch(new Error('SQLITE_ERROR: no such table: secret_stuff'), host);
    expect(sent).toEqual({
      status: 500,
      body: { code: 500, message: 'Internal Server Error', data: { details: 'Internal server error' } },
    });
    expect(JSON.stringify(sent.body)).not.toContain('secret_stuff');
    expect(errorLog).toHaveBeenCalledWith(
      expect.objectContaining({ requestId: 'req-1', msg: 'Unhandled error' }),
    );
  });
});
