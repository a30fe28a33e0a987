import { expect } from '@jest/globals';
import type { Test } from 'supertest';

/** A refused request body, the field its 400 must name and the rule broken. */
export type Refusal = [body: object, field: string, rule: string];

/** Sends each body through `send` and expects a 400 whose `data.errors` name that field and rule. */
export async function expectRefusals(send: (body: object) => Test, refusals: Refusal[]): Promise<void> {
  for (const [body, field, rule] of refusals) {
    const res = await send(body).expect(400);
    expect({ body, code: res.body.code, errors: res.body.data.errors }).toEqual({
      body,
      code: 400,
      errors: expect.arrayContaining([expect.objectContaining({ field, rule })]),
    });
  }
}
