import { parse } from 'node:querystring';

/** Query fields that take `field[key]=value` pairs: the product list's `option[Size]=M`. */
const KEYED_FIELDS = new Set(['option']);
const KEYED = /^([a-z_]+)\[([^[\]]*)\]$/;

/**
 * The application's query parser: Express's simple one (node:querystring: a repeated key gives an array), with
 * the `field[key]` pairs of KEYED_FIELDS gathered into an object `field: {key: value or values}`. Any other
 * bracketed key stays as it was sent (an unknown field to the validation), and so do a field's pairs when the
 * field is also sent plain (`option=M`), so that the validation refuses the field instead of picking one.
 */
export function parseQuery(text: string): Record<string, unknown> {
  const query: Record<string, unknown> = parse(text);
  let sentPlain: Set<string> | undefined;
  for (const key of Object.keys(query)) {
    if (!key.endsWith(']')) continue;
    const match = KEYED.exec(key);
    if (match === null || !KEYED_FIELDS.has(match[1])) continue;
    const [, field, name] = match;
    sentPlain ??= new Set(Object.keys(query).filter((other) => KEYED_FIELDS.has(other)));
    if (sentPlain.has(field)) continue;
    // No prototype: a key such as `__proto__` is an own field, which the validation refuses by name.
    const group = (query[field] ??= Object.create(null)) as Record<string, unknown>;
    group[name] = query[key];
    delete query[key];
  }
  return query;
}
