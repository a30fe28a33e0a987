import { CallHandler, ExecutionContext, Injectable, NestInterceptor, StreamableFile } from '@nestjs/common';
import type { Response } from 'express';
import { map, Observable } from 'rxjs';
import { Envelope, Paginated, statusMessage } from './envelope.js';

/** Wraps every successful HTTP result in `{code, message, data[, meta]}`; `code` is the HTTP status. */
@Injectable()
export class ResponseEnvelopeInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() !== 'http') return next.handle();
    const response = context.switchToHttp().getResponse<Response>();
    return next.handle().pipe(
      map((result: unknown): unknown => {
        if (result instanceof StreamableFile) return result;
        const code = response.statusCode;
        if (result instanceof Paginated) {
          return {
            code,
            message: statusMessage(code),
            data: result.items,
            meta: result.meta,
          } satisfies Envelope;
        }
        return { code, message: statusMessage(code), data: result ?? null } satisfies Envelope;
      }),
    );
  }
}
