import type { ValueTransformer } from 'typeorm';

/** A nullable TEXT column holding a JSON value (the same text on SQLite and MySQL/MariaDB). */
export function jsonText<T>(): ValueTransformer {
  return {
    to: (value: T | null | undefined) => (value == null ? value : JSON.stringify(value)),
    from: (text: string | null) => (text === null ? null : (JSON.parse(text) as T)),
  };
}
