import { CommerceApiError } from '@commerce/sdk';

/** What went wrong, for a person: each rule the API named, else its details. */
export function problems(error: unknown): string[] {
  if (!(error instanceof CommerceApiError)) return ['The shop could not be reached: try again.'];
  return error.fields.length > 0 ? error.fields.map(({ message }) => message) : [error.details];
}
