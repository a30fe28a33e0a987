/** Longest slug: room for a numeric suffix within the 200 characters of the column. */
export const SLUG_MAX_LENGTH = 190;

/** Lowercase ASCII letters and digits in runs joined by single hyphens, with at least one letter. */
export const SLUG_PATTERN = /^(?=[a-z0-9-]*[a-z])[a-z0-9]+(?:-[a-z0-9]+)*$/;

/**
 * The slug a name gives: accents dropped, lowercase, every run of other characters one hyphen, none at the ends,
 * at most `maxLength` characters. A name without ASCII letters gets `fallback` in front ("2024" ->
 * "product-2024", "茶" -> "product"), so that a slug is never empty and never looks like a numeric id; with
 * `letterRequired` false only an empty slug becomes `fallback` (category slugs may be digits only).
 */
export function slugify(
  name: string,
  fallback: string,
  {
    maxLength = SLUG_MAX_LENGTH,
    letterRequired = true,
  }: { maxLength?: number; letterRequired?: boolean } = {},
): string {
  const words = name
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .slice(0, maxLength)
    .replace(/^-+|-+$/g, '');
  if (words === '') return fallback;
  if (!letterRequired || /[a-z]/.test(words)) return words;
  return `${fallback}-${words}`.slice(0, maxLength).replace(/-+$/, '');
}

/**
 * The first of `base`, `base-2`, `base-3`, … that is not in `taken` (the slugs already used that start with
 * `base`).
 */
export function freeSlug(base: string, taken: Iterable<string>): string {
  const used = new Set(taken);
  if (!used.has(base)) return base;
  let highest = 1;
  const suffixed = new RegExp(`^${base}-(\\d{1,9})$`);
  for (const slug of used) {
    const match = suffixed.exec(slug);
    if (match !== null) highest = Math.max(highest, Number(match[1]));
  }
  return `${base}-${highest + 1}`;
}
