import { describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ROOT = join(__dirname, '..', '..', '..');
const tsc = (project: string) =>
  run(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '--noEmit', '-p', project]).then(
    () => '',
    (error: { stdout: string }) => error.stdout,
  );

describe('the SDK under tsc --strict', () => {
  it('compiles with a typed usage (partial update, upload, helpers, frames: no cast) and refuses wrong calls', async () => {
    // tsconfig.json: strict, noUncheckedIndexedAccess; test/types/refused.ts holds calls that must not compile,
    // each under `@ts-expect-error` (an unused directive is itself an error).
    expect(await tsc(join(ROOT, 'packages/sdk/tsconfig.json'))).toBe('');
  });

  it("has the gateway's frame names and shapes (test/types/gateway-frames.ts)", async () => {
    expect(await tsc(join(ROOT, 'packages/sdk/test/types/tsconfig.gateway.json'))).toBe('');
  });
});
