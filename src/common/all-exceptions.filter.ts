import { ArgumentsHost, Catch, ExceptionFilter, HttpException, HttpStatus, Logger } from '@nestjs/common';
import type { Request, Response } from 'express';
import { Envelope, statusMessage } from './envelope.js';

/** The only codes the API answers with (the specification's set). */
const API_CODES = new Set([400, 401, 403, 404, 429, 500]);

interface ErrorBody {
  message?: string | string[];
}

/** Errors thrown by Express middleware such as body-parser carry a status and an `expose` flag. */
interface MiddlewareError {
  status?: number;
  statusCode?: number;
  expose?: boolean;
  type?: string;
  message?: string;
  limit?: number;
}

function detailsOf(exception: HttpException): string {
  const body = exception.getResponse();
  if (typeof body === 'string') return body;
  const message = (body as ErrorBody).message;
  if (Array.isArray(message)) return message.join('; ');
  return message ?? exception.message;
}

/** Maps any status to the API's set: other 4xx become 400, other 5xx become 500. */
function toApiCode(status: number): number {
  if (API_CODES.has(status)) return status;
  return status >= 400 && status < 500 ? 400 : 500;
}

function describeMiddlewareError(error: MiddlewareError): string {
  switch (error.type) {
    case 'entity.parse.failed':
      return 'Malformed JSON in request body';
    case 'entity.too.large':
      return `Request body is larger than ${error.limit} bytes`;
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return 'Unsupported request body encoding';
    default:
      return error.message ?? 'Bad request';
  }
}

/**
 * Catch-all filter: every error becomes the envelope `{code, message, data: {details}}` with the HTTP
 * status equal to `code`. Unknown errors are a generic 500; the log keeps the cause and the request id.
 */
@Catch()
export class AllExceptionsFilter implements ExceptionFilter {
  private readonly logger = new Logger('Exceptions');

  catch(exception: unknown, host: ArgumentsHost): void {
    if (host.getType() !== 'http') throw exception;
    const request = host.switchToHttp().getRequest<Request>();
    const response = host.switchToHttp().getResponse<Response>();

    let code: number;
    let details: string;
    if (exception instanceof HttpException) {
      code = toApiCode(exception.getStatus());
      details = detailsOf(exception);
    } else if (isClientMiddlewareError(exception)) {
      code = 400;
      details = describeMiddlewareError(exception);
    } else {
      code = HttpStatus.INTERNAL_SERVER_ERROR;
      details = 'Internal server error';
      this.logger.error({
        msg: 'Unhandled error',
        requestId: request.id,
        method: request.method,
        path: request.path,
        error: exception instanceof Error ? exception.stack : String(exception),
      });
    }

    if (response.headersSent) return;
    const body: Envelope<{ details: string }> = { code, message: statusMessage(code), data: { details } };
    response.status(code).json(body);
  }
}

function isClientMiddlewareError(error: unknown): error is MiddlewareError {
  if (typeof error !== 'object' || error === null) return false;
  const status = (error as MiddlewareError).status ?? (error as MiddlewareError).statusCode;
  return (
    typeof status === 'number' && status >= 400 && status < 500 && (error as MiddlewareError).expose === true
  );
}
