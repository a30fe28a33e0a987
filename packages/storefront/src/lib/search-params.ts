/** Next's page `searchParams`: each name once or repeated. */
export type SearchParams = Record<string, string | string[] | undefined>;

export const all = (value: string | string[] | undefined): string[] =>
  value === undefined ? [] : Array.isArray(value) ? value : [value];

export const first = (value: string | string[] | undefined): string | undefined => all(value)[0];

/** A positive number from the URL, or undefined (a hand-edited URL is not an error page). */
export function numberParam(value: string | string[] | undefined): number | undefined {
  const text = first(value);
  if (text === undefined || text.trim() === '') return undefined;
  const number = Number(text);
  return Number.isFinite(number) && number >= 0 ? number : undefined;
}

/** The same URL with some parameters replaced (`null` removes one). */
export function withParams(
  path: string,
  params: SearchParams,
  changes: Record<string, string | null>,
): string {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    if (name in changes) continue;
    for (const item of all(value)) query.append(name, item);
  }
  for (const [name, value] of Object.entries(changes)) if (value !== null) query.set(name, value);
  const text = query.toString();
  return text === '' ? path : `${path}?${text}`;
}
