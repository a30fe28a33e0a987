import { describe, expect, it } from '@jest/globals';
import { CallHandler, ExecutionContext, StreamableFile } from '@nestjs/common';
import { firstValueFrom, of } from 'rxjs';
import { Paginated } from './envelope.js';
import { ResponseEnvelopeInterceptor } from './response-envelope.interceptor.js';

function httpContext(statusCode: number): ExecutionContext {
  return {
    getType: () => 'http',
    switchToHttp: () => ({ getResponse: () => ({ statusCode }) }),
  } as unknown as ExecutionContext;
}

const handlerReturning = (value: unknown): CallHandler => ({ handle: () => of(value) });

describe('ResponseEnvelopeInterceptor', () => {
  const interceptor = new ResponseEnvelopeInterceptor();

  it('wraps a result with the status code as code and its reason phrase as message', async () => {
    const out = await firstValueFrom(interceptor.intercept(httpContext(201), handlerReturning({ id: 1 })));
    expect(out).toEqual({ code: 201, message: 'Created', data: { id: 1 } });
  });

  it('gives data null when the handler returns nothing (deletes)', async () => {
    const out = await firstValueFrom(interceptor.intercept(httpContext(200), handlerReturning(undefined)));
    expect(out).toEqual({ code: 200, message: 'OK', data: null });
  });

  it('turns a Paginated result into data and meta with total_page rounded up', async () => {
    const page = new Paginated([{ id: 1 }, { id: 2 }], 21, 3, 10);
    const out = await firstValueFrom(interceptor.intercept(httpContext(200), handlerReturning(page)));
    expect(out).toEqual({
      code: 200,
      message: 'OK',
      data: [{ id: 1 }, { id: 2 }],
      meta: { page: 3, page_size: 10, total: 21, total_page: 3 },
    });
  });

  it('passes files through untouched', async () => {
    const file = new StreamableFile(Buffer.from('x'));
    const out = await firstValueFrom(interceptor.intercept(httpContext(200), handlerReturning(file)));
    expect(out).toBe(file);
  });
});
