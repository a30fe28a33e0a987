import { describe, expect, it } from '@jest/globals';
import { plainToInstance } from 'class-transformer';
import { IsInt, IsString, Min, ValidateNested, validate } from 'class-validator';
import { Type } from 'class-transformer';
import {
  CodePointLength,
  codePointLength,
  NoInvisibleCharacters,
  NormalizedIdentifier,
  Optional,
  toFieldErrors,
} from './validation.js';

class Line {
  @IsInt() @Min(1) quantity: number;
}

class Form {
  @NormalizedIdentifier() @IsString() @NoInvisibleCharacters() name: string;
  @Optional() @IsString() @CodePointLength(0, 3) note?: string;
  @ValidateNested({ each: true }) @Type(() => Line) lines: Line[];
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
