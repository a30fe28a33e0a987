import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const read = (path: string) => JSON.parse(readFileSync(join(__dirname, '..', '..', '..', path), 'utf8'));

describe('the SDK package', () => {
  it("is versioned with the API: the root package's version", () => {
    expect(read('packages/sdk/package.json').version).toBe(read('package.json').version);
  });

  it('is an ESM package with its types, publishing only dist and the README', () => {
    const sdk = read('packages/sdk/package.json');
    expect(sdk).toMatchObject({
      name: '@commerce/sdk',
      type: 'module',
      sideEffects: false,
      exports: { '.': { types: './dist/index.d.ts', default: './dist/index.js' } },
      files: ['dist', 'README.md'],
      engines: { node: '>=20.11' },
    });
    expect(Object.keys(sdk.dependencies)).toEqual(['openapi-fetch']);
    expect(read('package.json').workspaces).toEqual(['packages/*']);
  });
});
