import type { ValueTransformer } from 'typeorm';

/** A nullable TEXT column holding a JSON value (the same text on SQLite and MySQL/MariaDB). */
export function jsonText<T>(): ValueTransformer {
  return {
    to: (value: T | null | undefined) => (value == null ? value : JSON.stringify(value)),
    from: (text: string | null) => (text === null ? null : (JSON.parse(text) as T)),
  };
}

/** A DECIMAL column read as a number (MySQL/MariaDB answer a string, SQLite a number). */
export const decimalNumber: ValueTransformer = {
  to: (value: number | null | undefined) => value,
  from: (value: string | number | null) => (value === null ? null : Number(value)),
};

/** A BIGINT column of minor units read as a number (mysql2 answers a string past 2^53 only). */
export const bigintNumber: ValueTransformer = {
  to: (value: number | null | undefined) => value,
  from: (value: string | number | null) => (value === null ? null : Number(value)),
};
