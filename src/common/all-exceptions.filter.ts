import { ArgumentsHost, Catch, ExceptionFilter, HttpException, HttpStatus, Logger } from '@nestjs/common';
import type { Request, Response } from 'express';
import { Envelope, statusMessage } from './envelope.js';
import { BodyRefusedError } from './json-body.js';
import { FieldError, ValidationFailedException } from './validation.js';

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

/** Body-parser refusals as a field error on the whole request (field ""). */
function describeMiddlewareError(error: MiddlewareError): FieldError {
  if (error instanceof BodyRefusedError) return { field: '', rule: error.rule, message: error.message };
  switch (error.type) {
    case 'entity.parse.failed':
      return { field: '', rule: 'json', message: 'Malformed JSON in request body' };
    case 'entity.too.large':
      return { field: '', rule: 'maxBytes', message: `Request body is larger than ${error.limit} bytes` };
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return { field: '', rule: 'encoding', message: 'Unsupported request body encoding' };
    default:
      return { field: '', rule: 'invalid', message: error.message ?? 'Bad request' };
  }
}

/** The field errors of a 400: the validation's own list, else the whole message as one entry. */
function fieldErrorsOf(exception: HttpException, details: string): FieldError[] {
  if (exception instanceof ValidationFailedException) return exception.errors;
  return [{ field: '', rule: 'invalid', message: details }];
}

/** `data` of an error envelope; `errors` on every 400. */
interface ErrorData {
  details: string;
  errors?: FieldError[];
}

/**
 * Catch-all filter: every error becomes the envelope `{code, message, data: {details[, errors]}}` with the
 * HTTP status equal to `code`. Unknown errors are a generic 500; the log keeps the cause and the request id.
 */
@Catch()
export class AllExceptionsFilter implements ExceptionFilter {
  private readonly logger = new Logger('Exceptions');

  catch(thrown: unknown, host: ArgumentsHost): void {
    // Nest wraps errors of Express middleware (body-parser) in an HttpException; the original says more.
    const exception =
      thrown instanceof HttpException && isClientMiddlewareError(thrown.cause) ? thrown.cause : thrown;
    if (host.getType() !== 'http') throw exception;
    const request = host.switchToHttp().getRequest<Request>();
    const response = host.switchToHttp().getResponse<Response>();

    let code: number;
    let data: ErrorData;
    if (isClientMiddlewareError(exception)) {
      code = 400;
      const error = describeMiddlewareError(exception);
      data = { details: error.message, errors: [error] };
    } else if (exception instanceof HttpException) {
      code = toApiCode(exception.getStatus());
      const details = detailsOf(exception);
      data = code === 400 ? { details, errors: fieldErrorsOf(exception, details) } : { details };
    } else {
      code = HttpStatus.INTERNAL_SERVER_ERROR;
      data = { details: 'Internal server error' };
      this.logger.error({
        msg: 'Unhandled error',
        requestId: request.id,
        method: request.method,
        path: request.path,
        error: exception instanceof Error ? exception.stack : String(exception),
      });
    }

    if (response.headersSent) return;
    const body: Envelope<ErrorData> = { code, message: statusMessage(code), data };
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
