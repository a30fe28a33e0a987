import {
  type ArgumentMetadata,
  applyDecorators,
  BadRequestException,
  type CanActivate,
  type ExecutionContext,
  Injectable,
  SetMetadata,
  ValidationPipe,
} from '@nestjs/common';
import { ROUTE_ARGS_METADATA } from '@nestjs/common/constants.js';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum.js';
import { Reflector } from '@nestjs/core';
import type { Request } from 'express';
import { Transform } from 'class-transformer';
import {
  buildMessage,
  isISO8601,
  ValidateBy,
  ValidateIf,
  ValidationError,
  ValidatorOptions,
} from 'class-validator';

/** One problem of a refused request: `field` is a path (`items.0.quantity`), "" for the request as a whole. */
export interface FieldError {
  field: string;
  rule: string;
  message: string;
}

/**
 * A 400 listing every problem found. The exception filter puts `errors` in `data.errors` and their messages,
 * joined with "; ", in `data.details`.
 */
export class ValidationFailedException extends BadRequestException {
  constructor(readonly errors: FieldError[]) {
    super(errors.map((error) => error.message).join('; '));
  }
}

/** A 400 about one field, for rules checked outside the DTOs (a setting, the database). */
export function fieldError(field: string, rule: string, message: string): ValidationFailedException {
  return new ValidationFailedException([{ field, rule, message }]);
}

/** Flattens class-validator's tree into one entry per failed rule, the field named by its full path. */
export function toFieldErrors(errors: ValidationError[], parentPath = ''): FieldError[] {
  const result: FieldError[] = [];
  for (const error of errors) {
    const field = parentPath === '' ? error.property : `${parentPath}.${error.property}`;
    for (const [rule, message] of Object.entries(error.constraints ?? {})) {
      result.push({ field, rule, message: parentPath === '' ? message : `${parentPath}.${message}` });
    }
    if (error.children !== undefined && error.children.length > 0) {
      result.push(...toFieldErrors(error.children, field));
    }
  }
  return result;
}

/** The page-size limit is a setting, so the list DTOs cannot carry it as a static @Max. */
interface PageSized {
  page_size?: unknown;
}

/**
 * The global pipe: whitelist, explicit conversions only, every problem as a field error. It also checks
 * `page_size` against PAGE_SIZE_MAX, so that `?page=abc&page_size=101` reports both fields.
 */
export class RequestValidationPipe extends ValidationPipe {
  constructor(private readonly pageSizeMax: number) {
    super({
      whitelist: true,
      forbidNonWhitelisted: true,
      transform: true,
      transformOptions: { enableImplicitConversion: false },
      exceptionFactory: (errors) => new ValidationFailedException(toFieldErrors(errors)),
    });
  }

  /**
   * Adds the fields named like a property of Object.prototype (`constructor`, `toString`, `__proto__`, …) to the
   * unknown fields: the whitelist looks fields up in a plain object, so it took them for declared ones, and the
   * parent pipe drops `__proto__` and `constructor` without a word.
   */
  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    const inherited =
      metadata.metatype !== undefined && this.toValidate(metadata) ? inheritedNames(value) : [];
    try {
      const result: unknown = await super.transform(value, metadata);
      if (inherited.length > 0) throw new ValidationFailedException(inherited);
      return result;
    } catch (error) {
      if (!(error instanceof ValidationFailedException) || inherited.length === 0) throw error;
      const known = new Set(error.errors.map((entry) => entry.field));
      throw new ValidationFailedException([
        ...error.errors,
        ...inherited.filter((entry) => !known.has(entry.field)),
      ]);
    }
  }

  /**
   * A single path or query value (`@Param('id') id: number`) reaches the route's own pipe as the string it was:
   * ValidationPipe would turn it into `+value` first, so that `0x10` became 16 and `abc` NaN.
   */
  protected override transformPrimitive(value: unknown): unknown {
    return value;
  }

  protected override async validate(
    object: object,
    validatorOptions?: ValidatorOptions,
  ): Promise<ValidationError[]> {
    const errors = await super.validate(object, validatorOptions);
    const pageSize = (object as PageSized).page_size;
    const alreadyRefused = errors.some((error) => error.property === 'page_size');
    if (typeof pageSize === 'number' && pageSize > this.pageSizeMax && !alreadyRefused) {
      const error = new ValidationError();
      error.property = 'page_size';
      error.value = pageSize;
      error.constraints = { max: `page_size must not be greater than ${this.pageSizeMax}` };
      errors.push(error);
    }
    return errors;
  }
}

const READS_OWN_BODY = 'readsOwnBody';

/** Marks a route that reads the request body itself (a multipart upload, a signed raw body). */
export const ReadsOwnBody = () => SetMetadata(READS_OWN_BODY, true);

/**
 * Global guard: a route that declares no `@Body()` takes no body. The validation pipe only sees declared
 * parameters, so the fields of a body sent to such a route (`POST /carts`, a `DELETE`) would go unnoticed; each
 * is refused here as an unknown field of a DTO is (rule `whitelistValidation`). No body, an empty object and the
 * routes marked @ReadsOwnBody() pass. It runs after authentication and roles, as the pipe does.
 */
@Injectable()
export class BodylessRouteGuard implements CanActivate {
  constructor(private readonly reflector: Reflector) {}

  canActivate(context: ExecutionContext): boolean {
    if (context.getType() !== 'http') return true;
    const body: unknown = context.switchToHttp().getRequest<Request>().body;
    if (!isJsonContainer(body) || Object.keys(body).length === 0) return true;
    const targets = [context.getHandler(), context.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(READS_OWN_BODY, targets)) return true;
    const params: object =
      Reflect.getMetadata(ROUTE_ARGS_METADATA, context.getClass(), context.getHandler().name) ?? {};
    if (Object.keys(params).some((key) => key.startsWith(`${RouteParamtypes.BODY}:`))) return true;
    throw new ValidationFailedException(
      Object.keys(body).map((field) => ({
        field,
        rule: 'whitelistValidation',
        message: `property ${field} should not exist`,
      })),
    );
  }
}

/** A parsed JSON or form body, an object or an array (its fields `0`, `1`, … as the pipe names them too). */
function isJsonContainer(body: unknown): body is object {
  return typeof body === 'object' && body !== null && !Buffer.isBuffer(body);
}

/** The fields of a request body or query, at any depth, whose name is a property of Object.prototype. */
function inheritedNames(value: unknown, path = ''): FieldError[] {
  if (typeof value !== 'object' || value === null) return [];
  const found: FieldError[] = [];
  for (const key of Object.keys(value)) {
    const field = path === '' ? key : `${path}.${key}`;
    if (Object.prototype.hasOwnProperty.call(Object.prototype, key)) {
      const message = `property ${key} should not exist`;
      found.push({
        field,
        rule: 'whitelistValidation',
        message: path === '' ? message : `${path}.${message}`,
      });
    } else {
      found.push(...inheritedNames((value as Record<string, unknown>)[key], field));
    }
  }
  return found;
}

/**
 * Like class-validator's @IsOptional(), but only for an absent field: `null` is still validated, and so
 * refused by the field's type rule, instead of reaching the database.
 */
export const Optional = () => ValidateIf((_object, value) => value !== undefined);

/** Number of Unicode code points: what VARCHAR(n) counts on MySQL/MariaDB (utf8mb4) and what SQLite keeps. */
export function codePointLength(value: string): number {
  let count = 0;
  for (const _ of value) count++;
  return count;
}

const MinCodePoints = (min: number) =>
  ValidateBy({
    name: 'minLength',
    constraints: [min],
    validator: {
      validate: (value: unknown) => typeof value === 'string' && codePointLength(value) >= min,
      defaultMessage: buildMessage(
        (prefix) => `${prefix}$property must be longer than or equal to $constraint1 characters`,
      ),
    },
  });

const MaxCodePoints = (max: number) =>
  ValidateBy({
    name: 'maxLength',
    constraints: [max],
    validator: {
      validate: (value: unknown) => typeof value === 'string' && codePointLength(value) <= max,
      defaultMessage: buildMessage(
        (prefix) => `${prefix}$property must be shorter than or equal to $constraint1 characters`,
      ),
    },
  });

/**
 * A string of `min`..`max` code points (rules `minLength`, `maxLength`). class-validator's @Length counts
 * UTF-16 units and skips variation selectors, so "a\uFE0F" x 50 passed a limit of 50 and did not fit a
 * VARCHAR(50).
 */
export const CodePointLength = (min: number, max: number) =>
  min > 0 ? applyDecorators(MinCodePoints(min), MaxCodePoints(max)) : MaxCodePoints(max);

/** Control, format (zero-width, bidi), private-use and unassigned characters, and non-ASCII spaces. */
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Co}\p{Cn}\p{Zl}\p{Zp}\u00A0\u1680\u2000-\u200A\u202F\u205F\u3000]/u;

/**
 * Account identifiers (username, email): NFKC-normalised before validation, so that full-width and other
 * compatibility forms become the plain letters they look like, and refused when they contain invisible or
 * control characters. The identifier rules then admit ASCII only, which both databases compare ignoring case.
 */
export const NormalizedIdentifier = () =>
  Transform(({ value }) => (typeof value === 'string' ? normalizeIdentifier(value) : value));

/** NFKC: the one normalisation of account identifiers, wherever a name is compared (the login lock too). */
export const normalizeIdentifier = (value: string) => value.normalize('NFKC');

export const NoInvisibleCharacters = () =>
  ValidateBy({
    name: 'noInvisibleCharacters',
    validator: {
      validate: (value: unknown) => typeof value === 'string' && !INVISIBLE.test(value),
      defaultMessage: buildMessage(
        (prefix) => `${prefix}$property must not contain control, zero-width or other invisible characters`,
      ),
    },
  });

/** RFC 3339 with its zone, at most milliseconds; isISO8601 (strict) then refuses days a month lacks. */
const DATE_TIME =
  /^\d{4}-\d\d-\d\dT([01]\d|2[0-3]):[0-5]\d:[0-5]\d(\.\d{1,3})?(Z|[+-]([01]\d|2[0-3]):[0-5]\d)$/;
/** MySQL's DATETIME range, in UTC (SQLite stores any). */
const DATE_TIME_MIN = Date.UTC(1000, 0, 1);
const DATE_TIME_END = Date.UTC(10000, 0, 1);

/**
 * A date-time as the API writes them, `2026-11-22T08:00:00.000Z` (RFC 3339: a time zone is required, `Z` or
 * `+02:00`), at most to the millisecond, in the years 1000 to 9999 once in UTC, which both databases store
 * (rule `isDateTime`). The service reads it with `new Date(value)`.
 */
export const DateTime = () =>
  ValidateBy({
    name: 'isDateTime',
    validator: {
      validate: (value: unknown) => {
        if (typeof value !== 'string' || !DATE_TIME.test(value) || !isISO8601(value, { strict: true })) {
          return false;
        }
        const at = Date.parse(value);
        return at >= DATE_TIME_MIN && at < DATE_TIME_END;
      },
      defaultMessage: buildMessage(
        (prefix) =>
          `${prefix}$property must be a date-time with a time zone, e.g. 2026-11-22T08:00:00.000Z, in the years 1000 to 9999`,
      ),
    },
  });
