#!/usr/bin/env node
// Writes a new domain module the way the project builds them, and registers it:
//   npm run generate:module gift-cards            writes src/gift-cards/, its migration, e2e test and docs stub
//   npm run generate:module gift-cards -- --remove removes all of it and the registrations
// NAME is the plural, in kebab case (the route, folder and table name). See docs/extending.md#the-generator.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, rmdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

const root = join(import.meta.dirname, '..');
const args = process.argv.slice(2);
const remove = args.includes('--remove');
const [name] = args.filter((arg) => !arg.startsWith('--'));

if (name === undefined || !/^[a-z][a-z0-9]*(-[a-z0-9]+)*s$/.test(name)) {
  fail('usage: npm run generate:module NAME [-- --remove]; NAME is a plural in kebab case, e.g. gift-cards');
}

const names = namesOf(name);
const paths = {
  folder: `src/${name}`,
  test: `test/${name}.e2e-spec.ts`,
  docs: `docs/modules/${name}.md`,
  appModule: 'src/app.module.ts',
  boundaries: 'module-boundaries.mjs',
  entities: 'src/database/entities.ts',
  migrations: 'src/database/migrations/index.ts',
};

function fail(message) {
  console.error(message);
  process.exit(1);
}

function namesOf(plural) {
  const singular = plural
    .replace(/ies$/, 'y')
    .replace(/(ss|x|ch|sh)es$/, '$1')
    .replace(/s$/, '');
  const pascal = (kebab) => kebab.replace(/(^|-)([a-z0-9])/g, (_, __, c) => c.toUpperCase());
  const camel = (kebab) => pascal(kebab).replace(/^./, (c) => c.toLowerCase());
  const words = (kebab) => kebab.replace(/-/g, ' ');
  return {
    plural,
    singular,
    Plural: pascal(plural),
    Singular: pascal(singular),
    pluralCamel: camel(plural),
    singularCamel: camel(singular),
    table: plural.replace(/-/g, '_'),
    words: words(plural),
    word: words(singular),
    Word: words(singular).replace(/^./, (c) => c.toUpperCase()),
  };
}

const read = (path) => readFileSync(join(root, path), 'utf8');
const write = (path, text) => {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), text);
};

function migrationFiles() {
  return readdirSync(join(root, 'src/database/migrations')).filter((file) =>
    file.endsWith(`-create-${name}.ts`),
  );
}

function generateModule() {
  if (existsSync(join(root, paths.folder))) fail(`${paths.folder} exists already`);
  if (migrationFiles().length > 0) fail(`a migration creating ${name} exists already`);
  const stamp = Date.now();
  const migration = {
    file: `src/database/migrations/${stamp}-create-${name}.ts`,
    class: `Create${names.Plural}${stamp}`,
  };
  const n = names;

  write(`${paths.folder}/${n.singular}.entity.ts`, entityFile(n));
  write(`${paths.folder}/dto/${n.singular}.dto.ts`, dtoFile(n));
  write(`${paths.folder}/${n.plural}.service.ts`, serviceFile(n));
  write(`${paths.folder}/${n.plural}.controller.ts`, controllerFile(n));
  write(`${paths.folder}/${n.singular}-lookup.ts`, facadeFile(n));
  write(`${paths.folder}/${n.plural}.module.ts`, moduleFile(n));
  write(migration.file, migrationFile(n, migration.class));
  write(paths.test, testFile(n));
  write(paths.docs, docsFile(n));

  register(
    paths.appModule,
    `import { ${n.Plural}Module } from './${n.plural}/${n.plural}.module.js';`,
    (text) => insertInArray(text, /imports: \[/, `${n.Plural}Module`),
  );
  register(
    paths.entities,
    `import { ${n.Singular} } from '../${n.plural}/${n.singular}.entity.js';`,
    (text) => insertInArray(text, /export const entities.*= \[/, n.Singular),
  );
  register(
    paths.migrations,
    `import { ${migration.class} } from './${stamp}-create-${n.plural}.js';`,
    (text) => insertInArray(text, /export const migrations.*= \[/, migration.class),
  );
  registerBoundary(n);
  format([
    paths.folder,
    paths.boundaries,
    migration.file,
    paths.test,
    paths.docs,
    paths.appModule,
    paths.entities,
    paths.migrations,
  ]);
  console.log(
    `Wrote ${paths.folder}/, ${migration.file}, ${paths.test} and ${paths.docs}; registered in ` +
      `${paths.appModule}, ${paths.entities} and ${paths.migrations}.`,
  );
}

function removeModule() {
  const n = names;
  const migrations = migrationFiles();
  if (!existsSync(join(root, paths.folder)) && migrations.length === 0) fail(`no module ${name} to remove`);
  rmSync(join(root, paths.folder), { recursive: true, force: true });
  rmSync(join(root, paths.test), { force: true });
  rmSync(join(root, paths.docs), { force: true });
  const docsDir = join(root, 'docs/modules');
  if (existsSync(docsDir) && readdirSync(docsDir).length === 0) rmdirSync(docsDir);
  unregister(paths.appModule, `${n.Plural}Module`);
  unregister(paths.entities, n.Singular);
  write(
    paths.boundaries,
    read(paths.boundaries)
      .split('\n')
      .filter((line) => !line.startsWith(`  '${n.plural}': `) && !line.startsWith(`  ${n.plural}: `))
      .join('\n'),
  );
  for (const file of migrations) {
    rmSync(join(root, 'src/database/migrations', file), { force: true });
    unregister(paths.migrations, `Create${n.Plural}${file.split('-')[0]}`);
  }
  format([paths.boundaries, paths.appModule, paths.entities, paths.migrations]);
  console.log(`Removed module ${name} and its registrations.`);
}

/** Lists the module's public surface (its module and facade files) for the boundary lint rule. */
function registerBoundary(n) {
  const text = read(paths.boundaries);
  const end = text.indexOf('\n};', text.indexOf('export const publicSurface = {'));
  if (end === -1) fail(`cannot find publicSurface in ${paths.boundaries}`);
  const entry = `\n  '${n.plural}': ['${n.plural}.module', '${n.singular}-lookup'],`;
  write(paths.boundaries, text.slice(0, end) + entry + text.slice(end));
}

/** Adds the import after the file's last import and the symbol at the end of the array opened by `opening`. */
function register(path, importLine, addToArray) {
  const lines = read(path).split('\n');
  const lastImport = lines.findLastIndex((line) => line.startsWith('import ') || line.startsWith('} from '));
  lines.splice(lastImport + 1, 0, importLine);
  write(path, addToArray(lines.join('\n')));
}

function insertInArray(text, opening, symbol) {
  const match = opening.exec(text);
  if (match === null) fail(`cannot find ${opening} to register ${symbol}`);
  let depth = 0;
  for (let i = match.index + match[0].length - 1; i < text.length; i++) {
    if (text[i] === '[') depth++;
    if (text[i] === ']' && --depth === 0) {
      const before = text.slice(0, i).trimEnd();
      const separator = before.endsWith(',') || before.endsWith('[') ? ' ' : ', ';
      return `${before}${separator}${symbol}${text.slice(i)}`;
    }
  }
  fail(`unbalanced array after ${opening}`);
}

/** Removes the import of `symbol` and its mention in the file's arrays (prettier tidies the rest). */
function unregister(path, symbol) {
  const text = read(path)
    .split('\n')
    .filter((line) => !new RegExp(`^import \\{ ${symbol} \\} from |^\\s*${symbol},?$`).test(line))
    .join('\n')
    .replace(new RegExp(`,\\s*${symbol}\\b(?=\\s*,?\\s*\\])|\\b${symbol},\\s*`, 'g'), '');
  write(path, text);
}

function format(files) {
  const prettier = join(root, 'node_modules/.bin/prettier');
  execFileSync(prettier, ['--write', '--log-level', 'warn', ...files], { cwd: root, stdio: 'inherit' });
}

function entityFile(n) {
  return `import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import { Timestamped } from '../database/timestamped.js';

@Entity('${n.table}')
export class ${n.Singular} extends Timestamped {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ type: 'varchar', length: 200 })
  name: string;

  /** Never negative: CHK_${n.table}_quantity on both databases (see the migration). */
  @Column({ type: 'integer', default: 0 })
  quantity: number;

  /** Null until it is published. Milliseconds kept on both databases (datetimeColumn in the migration). */
  @Column({ name: 'published_at', type: 'datetime', precision: 3, nullable: true })
  publishedAt: Date | null;
}
`;
}

function dtoFile(n) {
  return `import { ApiProperty, ApiPropertyOptional, PartialType } from '@nestjs/swagger';
import { IsInt, IsString, Max, Min, ValidateIf } from 'class-validator';
import { CodePointLength, DateTime, Optional } from '../../common/validation.js';
import type { ${n.Singular} } from '../${n.singular}.entity.js';

export class Create${n.Singular}Dto {
  @ApiProperty({ minLength: 1, maxLength: 200, example: 'First ${n.word}' })
  @IsString()
  @CodePointLength(1, 200)
  name: string;

  // Defaults in descriptions, not as \`default\`: typed clients read a default as a field always sent.
  @ApiPropertyOptional({ type: 'integer', minimum: 0, maximum: 1_000_000_000, example: 3, description: 'Default: 0' })
  @Optional()
  @IsInt()
  @Min(0)
  @Max(1_000_000_000)
  quantity?: number;

  @ApiPropertyOptional({
    type: 'string',
    format: 'date-time',
    nullable: true,
    example: '2026-11-22T08:00:00.000Z',
    description: 'With its time zone; null or absent: not published',
  })
  @ValidateIf((_object, value) => value !== undefined && value !== null)
  @DateTime()
  published_at?: string | null;
}

export class Update${n.Singular}Dto extends PartialType(Create${n.Singular}Dto, { skipNullProperties: false }) {}

export class ${n.Singular}ResponseDto {
  @ApiProperty({ type: 'integer', example: 7 }) id: number;
  @ApiProperty({ example: 'First ${n.word}' }) name: string;
  @ApiProperty({ type: 'integer', example: 3 }) quantity: number;
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true, example: '2026-11-22T08:00:00.000Z' })
  published_at: string | null;
  @ApiProperty({ format: 'date-time', example: '2026-11-22T08:00:00.000Z' }) created_at: string;
  @ApiProperty({ format: 'date-time', example: '2026-11-22T08:00:00.000Z' }) updated_at: string;
}

export function to${n.Singular}Response(${n.singularCamel}: ${n.Singular}): ${n.Singular}ResponseDto {
  return {
    id: ${n.singularCamel}.id,
    name: ${n.singularCamel}.name,
    quantity: ${n.singularCamel}.quantity,
    published_at: ${n.singularCamel}.publishedAt === null ? null : ${n.singularCamel}.publishedAt.toISOString(),
    created_at: ${n.singularCamel}.createdAt.toISOString(),
    updated_at: ${n.singularCamel}.updatedAt.toISOString(),
  };
}
`;
}

function serviceFile(n) {
  return `import { Inject, Injectable, NotFoundException } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { Paginated } from '../common/envelope.js';
import { PageQueryDto, pageWindow } from '../common/pagination.js';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/config.module.js';
import { TransactionRunner } from '../database/transaction-runner.js';
import {
  Create${n.Singular}Dto,
  ${n.Singular}ResponseDto,
  to${n.Singular}Response,
  Update${n.Singular}Dto,
} from './dto/${n.singular}.dto.js';
import { ${n.Singular} } from './${n.singular}.entity.js';
import type { ${n.Singular}Lookup } from './${n.singular}-lookup.js';

@Injectable()
export class ${n.Plural}Service implements ${n.Singular}Lookup {
  constructor(
    @InjectRepository(${n.Singular}) private readonly ${n.pluralCamel}: Repository<${n.Singular}>,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly transactions: TransactionRunner,
  ) {}

  async create(dto: Create${n.Singular}Dto): Promise<${n.Singular}ResponseDto> {
    const ${n.singularCamel} = this.${n.pluralCamel}.create({
      name: dto.name,
      quantity: dto.quantity ?? 0,
      publishedAt: dateOrNull(dto.published_at) ?? null,
    });
    await this.transactions.run('create ${n.word}', (manager) => manager.insert(${n.Singular}, ${n.singularCamel}));
    return to${n.Singular}Response(await this.findOrFail(${n.singularCamel}.id));
  }

  async list(query: PageQueryDto): Promise<Paginated<${n.Singular}ResponseDto>> {
    const { page, pageSize, skip } = pageWindow(query, this.config.pageSizeMax);
    const [rows, total] = await this.${n.pluralCamel}.findAndCount({ order: { id: 'ASC' }, skip, take: pageSize });
    return new Paginated(rows.map(to${n.Singular}Response), total, page, pageSize);
  }

  async get(id: number): Promise<${n.Singular}ResponseDto> {
    return to${n.Singular}Response(await this.findOrFail(id));
  }

  async assertExists(id: number): Promise<void> {
    await this.findOrFail(id);
  }

  async update(id: number, dto: Update${n.Singular}Dto): Promise<${n.Singular}ResponseDto> {
    const changes = Object.fromEntries(
      Object.entries({ name: dto.name, quantity: dto.quantity, publishedAt: dateOrNull(dto.published_at) }).filter(
        ([, value]) => value !== undefined,
      ),
    );
    const result = await this.transactions.run('update ${n.word}', (manager) =>
      manager.update(${n.Singular}, { id }, { ...changes, updatedAt: new Date() }),
    );
    if (result.affected === 0) throw new NotFoundException(\`${n.Word} \${id} not found\`);
    return to${n.Singular}Response(await this.findOrFail(id));
  }

  async remove(id: number): Promise<void> {
    const result = await this.transactions.run('delete ${n.word}', (manager) => manager.delete(${n.Singular}, { id }));
    if (result.affected === 0) throw new NotFoundException(\`${n.Word} \${id} not found\`);
  }

  private async findOrFail(id: number): Promise<${n.Singular}> {
    const ${n.singularCamel} = await this.${n.pluralCamel}.findOneBy({ id });
    if (${n.singularCamel} === null) throw new NotFoundException(\`${n.Word} \${id} not found\`);
    return ${n.singularCamel};
  }
}

/** A date-time field of a request as the column's value: undefined (absent) and null (cleared) kept as they are. */
function dateOrNull(value: string | null | undefined): Date | null | undefined {
  return value === undefined || value === null ? value : new Date(value);
}
`;
}

function controllerFile(n) {
  const idError = "{ 400: { field: 'id', rule: 'isInt', message: 'id must be an integer number' } }";
  return `import { Body, Controller, Delete, Get, Post, Put, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Roles } from '../auth/auth-user.js';
import { Paginated } from '../common/envelope.js';
import { IdParam } from '../common/id-param.js';
import { ApiEnvelope, ApiErrors } from '../common/openapi.js';
import { PageQueryDto } from '../common/pagination.js';
import { Create${n.Singular}Dto, ${n.Singular}ResponseDto, Update${n.Singular}Dto } from './dto/${n.singular}.dto.js';
import { ${n.Plural}Service } from './${n.plural}.service.js';

/**
 * Every route is for admins. The reads are closed too until the module decides who may see its records: to let
 * any signed-in user list and read them (only when every field of the response is meant for every user), remove
 * \`@Roles('admin')\` and the 403 from the two GET routes, say "Any signed-in user" in their descriptions, and
 * change the 403 expectations of the reads in the e2e test. Records of their own for each user are read with
 * \`ownedBy(actor)\` in the query instead (docs/extending.md, Permissions).
 */
@ApiTags('${n.plural}')
@ApiBearerAuth()
@Controller('${n.plural}')
export class ${n.Plural}Controller {
  constructor(private readonly ${n.pluralCamel}: ${n.Plural}Service) {}

  @Get()
  @Roles('admin')
  @ApiOperation({ summary: 'List ${n.words} (admin)', description: 'Order: id ascending.' })
  @ApiEnvelope(${n.Singular}ResponseDto, { list: true })
  @ApiErrors(400, 401, 403, 429, {
    400: { field: 'page_size', rule: 'max', message: 'page_size must not be greater than 100' },
  })
  list(@Query() query: PageQueryDto): Promise<Paginated<${n.Singular}ResponseDto>> {
    return this.${n.pluralCamel}.list(query);
  }

  @Post()
  @Roles('admin')
  @ApiOperation({ summary: 'Create a ${n.word} (admin)' })
  @ApiEnvelope(${n.Singular}ResponseDto, { status: 201 })
  @ApiErrors(400, 401, 403, 429, {
    400: { field: 'quantity', rule: 'min', message: 'quantity must not be less than 0' },
  })
  create(@Body() dto: Create${n.Singular}Dto): Promise<${n.Singular}ResponseDto> {
    return this.${n.pluralCamel}.create(dto);
  }

  @Get(':id')
  @Roles('admin')
  @ApiOperation({ summary: 'Read a ${n.word} (admin)' })
  @ApiEnvelope(${n.Singular}ResponseDto)
  @ApiErrors(400, 401, 403, 404, 429, { ...${idError}, 404: '${n.Word} 7 not found' })
  get(@IdParam() id: number): Promise<${n.Singular}ResponseDto> {
    return this.${n.pluralCamel}.get(id);
  }

  @Put(':id')
  @Roles('admin')
  @ApiOperation({ summary: 'Update a ${n.word} (admin)', description: 'Partial: only the fields sent change.' })
  @ApiEnvelope(${n.Singular}ResponseDto)
  @ApiErrors(400, 401, 403, 404, 429, {
    400: { field: 'name', rule: 'minLength', message: 'name must be longer than or equal to 1 characters' },
    404: '${n.Word} 7 not found',
  })
  update(@IdParam() id: number, @Body() dto: Update${n.Singular}Dto): Promise<${n.Singular}ResponseDto> {
    return this.${n.pluralCamel}.update(id, dto);
  }

  @Delete(':id')
  @Roles('admin')
  @ApiOperation({ summary: 'Delete a ${n.word} (admin)' })
  @ApiEnvelope(null)
  @ApiErrors(400, 401, 403, 404, 429, { ...${idError}, 404: '${n.Word} 7 not found' })
  remove(@IdParam() id: number): Promise<void> {
    return this.${n.pluralCamel}.remove(id);
  }
}
`;
}

function facadeFile(n) {
  return `/** What other modules may ask of the ${n.plural} module (bound to ${n.Plural}Service in ${n.Plural}Module). */
export abstract class ${n.Singular}Lookup {
  /** 404 unless the ${n.word} exists. */
  abstract assertExists(id: number): Promise<void>;
}
`;
}

function moduleFile(n) {
  return `import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ${n.Singular} } from './${n.singular}.entity.js';
import { ${n.Plural}Controller } from './${n.plural}.controller.js';
import { ${n.Singular}Lookup } from './${n.singular}-lookup.js';
import { ${n.Plural}Service } from './${n.plural}.service.js';

/** Other modules import this module and inject ${n.Singular}Lookup, its public surface (docs/extending.md). */
@Module({
  imports: [TypeOrmModule.forFeature([${n.Singular}])],
  controllers: [${n.Plural}Controller],
  providers: [${n.Plural}Service, { provide: ${n.Singular}Lookup, useExisting: ${n.Plural}Service }],
  exports: [${n.Singular}Lookup],
})
export class ${n.Plural}Module {}
`;
}

function migrationFile(n, className) {
  return `import { MigrationInterface, QueryRunner, Table } from 'typeorm';
import { addCheck } from '../check-constraints.js';
import { datetimeColumn, timestampColumns } from '../timestamps.js';

export class ${className} implements MigrationInterface {
  name = '${className}';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createTable(
      new Table({
        name: '${n.table}',
        columns: [
          { name: 'id', type: 'integer', isPrimary: true, isGenerated: true, generationStrategy: 'increment' },
          { name: 'name', type: 'varchar', length: '200' },
          { name: 'quantity', type: 'integer', default: 0 },
          datetimeColumn(queryRunner, 'published_at', { nullable: true }),
          ...timestampColumns(queryRunner, { softDelete: false }),
        ],
      }),
    );
    // Not \`checks\` of the Table: TypeORM creates those on SQLite only.
    await addCheck(queryRunner, '${n.table}', 'CHK_${n.table}_quantity', 'quantity >= 0');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('${n.table}');
  }
}
`;
}

function testFile(n) {
  return `import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { ADMIN_ENV, createAccount, loginAdmin, type Account } from './support/accounts.js';
import { startTestApp, TestApp } from './support/test-app.js';

interface ${n.Singular}Data {
  id: number;
  name: string;
  quantity: number;
  published_at: string | null;
  created_at: string;
  updated_at: string;
}

// Runs on SQLite, and on MariaDB/MySQL with a mysql:// TEST_DATABASE_URL.
describe('${n.words}', () => {
  let t: TestApp;
  let admin: Account;
  let user: Account;

  const api = () => request(t.url);
  /** The stored row; published_at as an ISO string (SQLite gives text, MySQL a Date). */
  const row = async (id: number) => {
    const [found] = await t.dataSource.query('SELECT name, quantity, published_at FROM ${n.table} WHERE id = ?', [id]);
    if (found === undefined) return undefined;
    const at = found.published_at as string | Date | null;
    return {
      name: found.name as string,
      quantity: Number(found.quantity),
      published_at: at === null ? null : new Date(typeof at === 'string' ? \`\${at.replace(' ', 'T')}Z\` : at).toISOString(),
    };
  };
  const count = async () => Number((await t.dataSource.query('SELECT COUNT(*) AS n FROM ${n.table}'))[0].n);
  const create = async (body: object) =>
    (await api().post('/api/v1/${n.plural}').auth(admin.token, { type: 'bearer' }).send(body).expect(201)).body
      .data as ${n.Singular}Data;

  beforeAll(async () => {
    t = await startTestApp(ADMIN_ENV);
    admin = await loginAdmin(t);
    user = await createAccount(t);
  });

  afterAll(async () => {
    await t.close();
  });

  it('POST: an admin creates one (201, stored); a user gets 403 and no token 401, nothing written', async () => {
    const before = await count();
    const denied = await api()
      .post('/api/v1/${n.plural}')
      .auth(user.token, { type: 'bearer' })
      .send({ name: 'Denied' })
      .expect(403);
    expect(denied.body).toEqual({ code: 403, message: 'Forbidden', data: { details: 'Insufficient permission' } });
    const anonymous = await api().post('/api/v1/${n.plural}').send({ name: 'Anonymous' }).expect(401);
    expect(anonymous.body.code).toBe(401);
    expect(await count()).toBe(before);

    const res = await api()
      .post('/api/v1/${n.plural}')
      .auth(admin.token, { type: 'bearer' })
      .send({ name: 'First', quantity: 4 })
      .expect(201);
    expect(res.body).toEqual({
      code: 201,
      message: 'Created',
      data: {
        id: expect.any(Number),
        name: 'First',
        quantity: 4,
        published_at: null,
        created_at: expect.any(String),
        updated_at: expect.any(String),
      },
    });
    expect(await row(res.body.data.id)).toEqual({ name: 'First', quantity: 4, published_at: null });
    expect(await count()).toBe(before + 1);
  });

  it('published_at: stored to the millisecond, any time zone read back in UTC, cleared with null', async () => {
    const created = await create({ name: 'Dated', published_at: '2026-11-22T09:30:15.123+01:00' });
    expect(created.published_at).toBe('2026-11-22T08:30:15.123Z');
    expect(await row(created.id)).toEqual({ name: 'Dated', quantity: 0, published_at: '2026-11-22T08:30:15.123Z' });
    const cleared = await api()
      .put(\`/api/v1/${n.plural}/\${created.id}\`)
      .auth(admin.token, { type: 'bearer' })
      .send({ published_at: null })
      .expect(200);
    expect(cleared.body.data.published_at).toBeNull();
    expect(await row(created.id)).toEqual({ name: 'Dated', quantity: 0, published_at: null });
  });

  it('GET one: an admin reads it; a user 403 and no token 401; unknown id 404; a malformed id 400 naming id', async () => {
    const created = await create({ name: 'Readable' });
    const res = await api().get(\`/api/v1/${n.plural}/\${created.id}\`).auth(admin.token, { type: 'bearer' }).expect(200);
    expect(res.body).toEqual({ code: 200, message: 'OK', data: created });
    const denied = await api().get(\`/api/v1/${n.plural}/\${created.id}\`).auth(user.token, { type: 'bearer' }).expect(403);
    expect(denied.body).toEqual({ code: 403, message: 'Forbidden', data: { details: 'Insufficient permission' } });
    await api().get(\`/api/v1/${n.plural}/\${created.id}\`).expect(401);
    const missing = await api().get('/api/v1/${n.plural}/999999').auth(admin.token, { type: 'bearer' }).expect(404);
    expect(missing.body.data.details).toBe('${n.Word} 999999 not found');
    const bad = await api().get('/api/v1/${n.plural}/abc').auth(admin.token, { type: 'bearer' }).expect(400);
    expect(bad.body.data.errors).toEqual(
      expect.arrayContaining([expect.objectContaining({ field: 'id', rule: 'isInt' })]),
    );
  });

  it('bad input is a 400 naming the field and rule, and nothing is written', async () => {
    const before = await count();
    for (const [body, field, rule] of [
      [{}, 'name', 'isString'],
      [{ name: '' }, 'name', 'minLength'],
      [{ name: 'x'.repeat(201) }, 'name', 'maxLength'],
      [{ name: 'Ok', quantity: -1 }, 'quantity', 'min'],
      [{ name: 'Ok', quantity: 1.5 }, 'quantity', 'isInt'],
      [{ name: 'Ok', quantity: null }, 'quantity', expect.any(String)],
      [{ name: 'Ok', published_at: 'yesterday' }, 'published_at', 'isDateTime'],
      [{ name: 'Ok', published_at: '2026-11-22T08:00:00' }, 'published_at', 'isDateTime'],
      [{ name: 'Ok', unknown: 1 }, 'unknown', expect.any(String)],
    ] as const) {
      const res = await api().post('/api/v1/${n.plural}').auth(admin.token, { type: 'bearer' }).send(body).expect(400);
      expect({ body, code: res.body.code, errors: res.body.data.errors }).toEqual({
        body,
        code: 400,
        errors: expect.arrayContaining([expect.objectContaining({ field, rule })]),
      });
    }
    expect(await count()).toBe(before);
  });

  it('PUT: an admin changes only the fields sent and updated_at moves; a user 403; unknown 404', async () => {
    const created = await create({ name: 'Before', quantity: 2 });
    await new Promise((resolve) => setTimeout(resolve, 5));
    const res = await api()
      .put(\`/api/v1/${n.plural}/\${created.id}\`)
      .auth(admin.token, { type: 'bearer' })
      .send({ quantity: 9 })
      .expect(200);
    expect(res.body.data).toMatchObject({ id: created.id, name: 'Before', quantity: 9, published_at: null });
    expect(Date.parse(res.body.data.updated_at)).toBeGreaterThan(Date.parse(created.updated_at));
    expect(await row(created.id)).toEqual({ name: 'Before', quantity: 9, published_at: null });

    await api()
      .put(\`/api/v1/${n.plural}/\${created.id}\`)
      .auth(user.token, { type: 'bearer' })
      .send({ quantity: 1 })
      .expect(403);
    const bad = await api()
      .put(\`/api/v1/${n.plural}/\${created.id}\`)
      .auth(admin.token, { type: 'bearer' })
      .send({ name: '' })
      .expect(400);
    expect(bad.body.data.errors).toEqual([expect.objectContaining({ field: 'name', rule: 'minLength' })]);
    expect(await row(created.id)).toEqual({ name: 'Before', quantity: 9, published_at: null });
    await api().put('/api/v1/${n.plural}/999999').auth(admin.token, { type: 'bearer' }).send({ quantity: 1 }).expect(404);
  });

  it('DELETE: an admin removes it (200, data null, row gone) and again is 404; a user 403', async () => {
    const created = await create({ name: 'Doomed' });
    await api().delete(\`/api/v1/${n.plural}/\${created.id}\`).auth(user.token, { type: 'bearer' }).expect(403);
    expect(await row(created.id)).toBeDefined();
    const res = await api().delete(\`/api/v1/${n.plural}/\${created.id}\`).auth(admin.token, { type: 'bearer' }).expect(200);
    expect(res.body).toEqual({ code: 200, message: 'OK', data: null });
    expect(await row(created.id)).toBeUndefined();
    await api().delete(\`/api/v1/${n.plural}/\${created.id}\`).auth(admin.token, { type: 'bearer' }).expect(404);
  });

  it('GET list: an admin pages in id order with meta; page_size above the maximum is a 400; a user 403', async () => {
    for (const name of ['Page A', 'Page B', 'Page C']) await create({ name });
    const total = await count();
    const ids: Array<{ id: number }> = await t.dataSource.query('SELECT id FROM ${n.table} ORDER BY id');
    const res = await api().get('/api/v1/${n.plural}?page=2&page_size=2').auth(admin.token, { type: 'bearer' }).expect(200);
    expect(res.body.meta).toEqual({ page: 2, page_size: 2, total, total_page: Math.ceil(total / 2) });
    expect(res.body.data.map((item: { id: number }) => item.id)).toEqual(ids.slice(2, 4).map(({ id }) => Number(id)));
    const tooBig = await api().get('/api/v1/${n.plural}?page_size=101').auth(admin.token, { type: 'bearer' }).expect(400);
    expect(tooBig.body.data.errors).toEqual([expect.objectContaining({ field: 'page_size', rule: 'max' })]);
    const denied = await api().get('/api/v1/${n.plural}').auth(user.token, { type: 'bearer' }).expect(403);
    expect(denied.body.data).toEqual({ details: 'Insufficient permission' });
    await api().get('/api/v1/${n.plural}').expect(401);
  });

  it('the database itself refuses a negative quantity (CHECK on both databases)', async () => {
    await expect(
      t.dataSource.query("INSERT INTO ${n.table} (name, quantity) VALUES ('Direct', -1)"),
    ).rejects.toThrow(/CHK_${n.table}_quantity|CHECK constraint/i);
  });
});
`;
}

function docsFile(n) {
  return `# ${n.words.replace(/^./, (c) => c.toUpperCase())}

<!-- Written by \`npm run generate:module ${n.plural}\`: replace with what the module is for and its rules. -->

Stored in the \`${n.table}\` table (migration \`src/database/migrations/*-create-${n.plural}.ts\`; \`quantity\`
is never negative, a CHECK on both databases; \`published_at\` is null until set, to the millisecond).

Every route is for admins, the reads too: a user gets 403. Open the reads to signed-in users only once every
field is meant for them (the controller says how).

| Method and path                 | Who   | Answer                                                     |
| ------------------------------- | ----- | ---------------------------------------------------------- |
| \`GET /api/v1/${n.plural}\`      | admin | 200, a page in id order (\`page\`, \`page_size\`) with \`meta\` |
| \`POST /api/v1/${n.plural}\`     | admin | 201 with the new ${n.word}; 400 naming the field and rule   |
| \`GET /api/v1/${n.plural}/:id\`  | admin | 200; 404 when unknown                                      |
| \`PUT /api/v1/${n.plural}/:id\`  | admin | 200; partial, only the fields sent change; 404 when unknown |
| \`DELETE /api/v1/${n.plural}/:id\` | admin | 200 with \`data: null\`; 404 when unknown                   |

Tests: \`npx jest test/${n.plural}.e2e-spec.ts\` (SQLite; with \`TEST_DATABASE_URL=mysql://...\` on MariaDB/MySQL).
`;
}

if (remove) removeModule();
else generateModule();
