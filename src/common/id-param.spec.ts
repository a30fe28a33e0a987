import { describe, expect, it } from '@jest/globals';
import { IsInt, Max, Min } from 'class-validator';
import fc from 'fast-check';
import { parseId } from './id-param.js';
import { ToInteger } from './query-transforms.js';
import { RequestValidationPipe, ValidationFailedException } from './validation.js';

/** The DTO `:id` parameters were validated with before `parseId`: its answers are the contract. */
class IdParamDto {
  @ToInteger() @IsInt() @Min(1) @Max(2_147_483_647) id: number;
}

const pipe = new RequestValidationPipe(100);

async function throughDto(value: string): Promise<unknown> {
  try {
    return ((await pipe.transform({ id: value }, { type: 'param', metatype: IdParamDto })) as IdParamDto).id;
  } catch (error) {
    return (error as ValidationFailedException).errors;
  }
}

function throughParseId(value: string): unknown {
  try {
    return parseId(value);
  } catch (error) {
    return (error as ValidationFailedException).errors;
  }
}

describe('parseId: the :id path parameter', () => {
  it('accepts decimal positive 32-bit integers', () => {
    expect(parseId('1')).toBe(1);
    expect(parseId('007')).toBe(7);
    expect(parseId('2147483647')).toBe(2_147_483_647);
  });

  it('refuses with the field, rule and message the class-validator DTO gave', async () => {
    expect(throughParseId('abc')).toEqual([
      { field: 'id', rule: 'max', message: 'id must not be greater than 2147483647' },
      { field: 'id', rule: 'min', message: 'id must not be less than 1' },
      { field: 'id', rule: 'isInt', message: 'id must be an integer number' },
    ]);
    const inputs = ['abc', '-1', '0', '-0', '1.5', '99999999999', '99999999999999999999', ' ', '%00', '0x10'];
    for (const value of [...inputs, '1e3', '', '2147483648', '+5', '1 ', ' 5', '١٢', '12345678901234567']) {
      expect(throughParseId(value)).toEqual(await throughDto(value));
    }
  });

  it('agrees with the DTO on any string', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(fc.string(), fc.stringMatching(/^-?\d{0,18}$/), fc.integer().map(String)),
        async (value) => expect(throughParseId(value)).toEqual(await throughDto(value)),
      ),
      { numRuns: 500 },
    );
  });
});
