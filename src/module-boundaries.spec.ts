import { describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';

const root = join(__dirname, '..');
const run = promisify(execFile);

interface LintMessage {
  ruleId: string | null;
  message: string;
}

/** Lints `source` with the project's real eslint.config.mjs as if it were the file at `path`. */
async function lint(path: string, source: string): Promise<LintMessage[]> {
  const eslint = join(root, 'node_modules/.bin/eslint');
  const linting = run(eslint, ['--format', 'json', '--stdin', '--stdin-filename', path], { cwd: root });
  linting.child.stdin!.end(source);
  // eslint exits 1 when it reports an error; the report is still on stdout.
  const stdout = await linting.then(
    (result) => result.stdout,
    (error: { stdout?: string }) => {
      if (error.stdout === undefined || error.stdout === '') throw error;
      return error.stdout;
    },
  );
  const [report] = JSON.parse(stdout) as Array<{ messages: LintMessage[] }>;
  return report.messages.filter((message) => message.ruleId === 'no-restricted-imports');
}

describe('module boundaries (eslint no-restricted-imports per domain folder, module-boundaries.mjs)', () => {
  it('refuses an import of another domain’s entity, service or private helper, naming its public surface', async () => {
    const messages = await lint(
      'src/orders/fixture.ts',
      [
        "import { User } from '../users/user.entity.js';",
        "import { ProductsService } from '../products/products.service.js';",
        "import { placeholders } from '../products/product-statements.js';",
        'export const used = [User, ProductsService, placeholders];',
        '',
      ].join('\n'),
    );
    expect(messages).toHaveLength(3);
    expect(messages[0].message).toContain('orders may use the users module only through its public surface');
    expect(messages[0].message).toContain('src/users/user-accounts.ts');
    expect(messages[1].message).toContain('src/products/product-catalog.ts');
  }, 60000);

  it('refuses it from a nested folder too (a dto importing ../../users/...)', async () => {
    const messages = await lint(
      'src/orders/dto/fixture.ts',
      "import type { User } from '../../users/user.entity.js';\nexport type Owner = User;\n",
    );
    expect(messages).toHaveLength(1);
  }, 60000);

  it('allows the public surface of another domain and any file of the own domain', async () => {
    const messages = await lint(
      'src/orders/fixture.ts',
      [
        "import { ProductCatalog } from '../products/product-catalog.js';",
        "import { ProductsModule } from '../products/products.module.js';",
        "import { joinAccountSummary } from '../users/user-accounts.js';",
        "import { Order } from './order.entity.js';",
        'export const used = [ProductCatalog, ProductsModule, joinAccountSummary, Order];',
        '',
      ].join('\n'),
    );
    expect(messages).toEqual([]);
  }, 60000);
});
