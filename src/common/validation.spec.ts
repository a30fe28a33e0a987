import { describe, expect, it } from '@jest/globals';
import { plainToInstance } from 'class-transformer';
import { IsInt, IsObject, IsString, Min, ValidateNested, validate } from 'class-validator';
import { Type } from 'class-transformer';
import {
  CodePointLength,
  codePointLength,
  DateTime,
  NoInvisibleCharacters,
  NormalizedIdentifier,
  Optional,
  RequestValidationPipe,
  toFieldErrors,
  ValidationFailedException,
} from './validation.js';

class Line {
  @IsInt() @Min(1) quantity: number;
}

class Form {
  @NormalizedIdentifier() @IsString() @NoInvisibleCharacters() name: string;
  @Optional() @IsString() @CodePointLength(0, 3) note?: string;
  @IsObject({ each: true }) @ValidateNested({ each: true }) @Type(() => Line) lines: Line[];
}

async function errorsOf(plain: object) {
  return toFieldErrors(await validate(plainToInstance(Form, plain), { forbidUnknownValues: false }));
}

describe('field errors and shared rules', () => {
  it('names nested fields by path, one entry per broken rule', async () => {
    expect(await errorsOf({ name: 'a', lines: [{ quantity: 1 }, { quantity: 0 }] })).toEqual([
      { field: 'lines.1.quantity', rule: 'min', message: 'lines.1.quantity must not be less than 1' },
    ]);
  });

  it('treats an absent optional field as fine and null as a value to validate', async () => {
    expect(await errorsOf({ name: 'a', lines: [] })).toEqual([]);
    expect(await errorsOf({ name: 'a', note: null, lines: [] })).toEqual(
      expect.arrayContaining([
        { field: 'note', rule: 'isString', message: 'note must be a string' },
        { field: 'note', rule: 'maxLength', message: 'note must be shorter than or equal to 3 characters' },
      ]),
    );
  });

  it('counts code points, not UTF-16 units, and counts variation selectors', async () => {
    expect(codePointLength('😀😀😀')).toBe(3);
    expect(codePointLength('a\uFE0F')).toBe(2);
    expect(await errorsOf({ name: 'a', note: '😀😀😀', lines: [] })).toEqual([]);
    expect((await errorsOf({ name: 'a', note: 'a\uFE0Fbc', lines: [] }))[0].rule).toBe('maxLength');
  });

  it('normalises identifiers with NFKC and refuses invisible characters', async () => {
    const form = plainToInstance(Form, { name: 'ａｌｉｃｅ', lines: [] });
    expect(form.name).toBe('alice');
    for (const name of ['al\u200Bice', 'al\u0000ice', 'al\u202Eice', 'al\u2060ice']) {
      expect((await errorsOf({ name, lines: [] }))[0]).toMatchObject({
        field: 'name',
        rule: 'noInvisibleCharacters',
      });
    }
  });
});

describe('RequestValidationPipe: unknown fields', () => {
  const pipe = new RequestValidationPipe(100);

  async function refusal(json: string, type: 'body' | 'query' = 'body') {
    try {
      await pipe.transform(JSON.parse(json), { type, metatype: Form });
    } catch (error) {
      expect(error).toBeInstanceOf(ValidationFailedException);
      return (error as ValidationFailedException).errors;
    }
    throw new Error(`${json} was accepted`);
  }

  it.each(['constructor', 'toString', 'hasOwnProperty', 'valueOf', '__defineGetter__', '__proto__'])(
    'refuses a field named like a property of Object.prototype: %s',
    async (name) => {
      for (const type of ['body', 'query'] as const) {
        expect(await refusal(`{"name":"a","lines":[],"${name}":1}`, type)).toEqual([
          { field: name, rule: 'whitelistValidation', message: `property ${name} should not exist` },
        ]);
      }
    },
  );

  it('names such a field by its path when nested, beside the other problems', async () => {
    expect(
      await refusal(
        '{"name":"a","note":"abcd","lines":[{"quantity":1,"constructor":{}}],"__proto__":{"x":1}}',
      ),
    ).toEqual([
      { field: 'note', rule: 'maxLength', message: 'note must be shorter than or equal to 3 characters' },
      {
        field: 'lines.0.constructor',
        rule: 'whitelistValidation',
        message: 'lines.0.property constructor should not exist',
      },
      { field: '__proto__', rule: 'whitelistValidation', message: 'property __proto__ should not exist' },
    ]);
  });

  it('still accepts a body of declared fields only', async () => {
    await expect(
      pipe.transform({ name: 'a', lines: [{ quantity: 1 }] }, { type: 'body', metatype: Form }),
    ).resolves.toEqual({ name: 'a', lines: [{ quantity: 1 }] });
  });
});

describe('DateTime', () => {
  it('takes RFC 3339 with a zone and at most milliseconds, a real day, in the years 1000 to 9999 in UTC', async () => {
    class Dated {
      @DateTime() at: string;
    }
    const ruleOf = async (at: unknown) =>
      toFieldErrors(await validate(plainToInstance(Dated, { at }), { forbidUnknownValues: false }))[0]?.rule;
    for (const at of [
      '2026-11-22T08:00:00Z',
      '2026-11-22T08:00:00.123Z',
      '2026-11-22T08:00:00.5+02:00',
      '2028-02-29T23:59:59-11:30',
      '1000-01-01T00:00:00Z',
      '9999-12-31T23:59:59.999Z',
    ]) {
      expect({ at, rule: await ruleOf(at) }).toEqual({ at, rule: undefined });
    }
    for (const at of [
      '2026-11-22',
      '2026-11-22T08:00:00',
      '2026-11-22 08:00:00Z',
      '2026-11-22T08:00Z',
      '2026-11-22T08:00:00.1234Z',
      '2026-02-29T00:00:00Z',
      '2026-04-31T00:00:00Z',
      '2026-11-22T24:00:00Z',
      '0999-12-31T23:59:59Z',
      '1000-01-01T00:30:00+01:00',
      '9999-12-31T23:00:00-05:00',
      'yesterday',
      1_764_000_000_000,
      null,
    ]) {
      expect({ at, rule: await ruleOf(at) }).toEqual({ at, rule: 'isDateTime' });
    }
  });
});
