/** Resolves once `condition` holds (checked every `everyMs`), failing after `ms`. */
export async function eventually(
  condition: () => boolean | Promise<boolean>,
  { ms = 10_000, everyMs = 20 }: { ms?: number; everyMs?: number } = {},
): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
