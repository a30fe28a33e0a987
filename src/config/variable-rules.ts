import { Transform } from 'class-transformer';
import { IsBoolean, IsIn, IsInt, Max, Min, ValidateBy, type ValidationArguments } from 'class-validator';

// Decorators for the properties of `EnvironmentVariables`: each converts the variable's text and validates the
// result with a message that names the variable and quotes what was given. A text that cannot be converted is
// left as it is, so the validation fails on it and the message shows it.

function compose(...decorators: PropertyDecorator[]): PropertyDecorator {
  return (target, key) => decorators.forEach((decorate) => decorate(target, key));
}

/** An integer from `min` to `max`. */
export function IntegerVariable(min: number, max = Number.MAX_SAFE_INTEGER): PropertyDecorator {
  const message = `$property must be an integer from ${min} to ${max} (got "$value")`;
  return compose(
    Transform(({ value }) => (typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value)),
    IsInt({ message }),
    Min(min, { message }),
    Max(max, { message }),
  );
}

const TRUE_WORDS = ['true', '1', 'yes'];
const FALSE_WORDS = ['false', '0', 'no'];

/** true/false, 1/0 or yes/no. */
export function BooleanVariable(): PropertyDecorator {
  return compose(
    Transform(({ value }) => {
      const word = String(value).toLowerCase();
      return TRUE_WORDS.includes(word) ? true : FALSE_WORDS.includes(word) ? false : word;
    }),
    IsBoolean({ message: '$property must be true or false (got "$value")' }),
  );
}

/** One of a fixed set of words. */
export function OneOfVariable(allowed: readonly string[]): PropertyDecorator {
  return IsIn(allowed as string[], {
    message: `$property must be one of ${allowed.join(', ')} (got "$value")`,
  });
}

const DURATION_UNITS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86400 };

/** Seconds of a duration written `900`, `15m`, `1h` or `7d`; undefined for anything else. */
export function parseDuration(text: string): number | undefined {
  const match = /^(\d+)([smhd]?)$/.exec(text);
  return match ? Number(match[1]) * DURATION_UNITS[match[2] || 's'] : undefined;
}

/** A positive duration in seconds: `900`, or with a unit `15m`, `1h`, `7d`; with `allowZero`, also `0` (off). */
export function DurationVariable({ allowZero = false } = {}): PropertyDecorator {
  const message = allowZero
    ? '$property must be 0 (off) or a duration such as 900, 15m, 1h or 7d (got "$value")'
    : '$property must be a positive duration such as 900, 15m, 1h or 7d (got "$value")';
  return compose(
    Transform(({ value }) => parseDuration(String(value)) ?? value),
    IsInt({ message }),
    Min(allowZero ? 0 : 1, { message }),
  );
}

/** A comma-separated list; blanks around and between the items are dropped. Validate the items with `each`. */
export function ListVariable(normalize: (item: string) => string = (item) => item): PropertyDecorator {
  return Transform(({ value }) =>
    String(value)
      .split(',')
      .map((item) => normalize(item.trim()))
      .filter((item) => item !== ''),
  );
}

/**
 * A rule too particular for the decorators above: `problem` returns what is wrong with the value (the text after
 * the variable's name), or undefined when it is fine.
 */
export function VariableRule(
  problem: (value: unknown, variables: object) => string | undefined,
): PropertyDecorator {
  return ValidateBy({
    name: 'variableRule',
    validator: {
      validate: (value, args) => problem(value, args!.object) === undefined,
      defaultMessage: (args) => `${args!.property} ${problem(args!.value, args!.object)}`,
    },
  });
}

/** The message of a rule on a list variable's items, quoting the list. */
export function listMessage(rule: string): (args: ValidationArguments) => string {
  return (args) => `${args.property} ${rule} (got "${(args.value as string[]).join(',')}")`;
}
