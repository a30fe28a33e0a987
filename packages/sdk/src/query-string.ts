/**
 * The query string of an API call (the SDK's default querySerializer), as openapi-fetch writes it (`name=value`, a list as the name repeated) but for
 * deepObject parameters with several values, which openapi-fetch refuses: the product list's
 * `option: { Size: ['M', 'L'] }` is `option[Size]=M&option[Size]=L`. Keys inside the brackets are percent-encoded
 * (an option named `Size & fit`), as values are.
 */
export function serializeQuery(query: Record<string, unknown>): string {
  const pairs: string[] = [];
  const add = (name: string, value: unknown) => {
    for (const item of Array.isArray(value) ? value : [value]) {
      if (item !== undefined && item !== null) pairs.push(`${name}=${encodeURIComponent(String(item))}`);
    }
  };
  for (const [name, value] of Object.entries(query)) {
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
      for (const [key, inner] of Object.entries(value)) add(`${name}[${encodeURIComponent(key)}]`, inner);
    } else add(name, value);
  }
  return pairs.join('&');
}
