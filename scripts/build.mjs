#!/usr/bin/env node
// `npm run build`, which `npm start` runs first: the service, then the SDK, then the admin console, each step only
// when something it is built from has changed since its last build, so that a start with nothing changed takes
// seconds instead of a full build.
//
// - The service: `tsc -b` (incremental). dist/tsconfig.build.tsbuildinfo records the sources it was compiled from:
//   with none changed tsc stops after comparing times; a changed file is compiled again without re-checking the
//   others. tsc does not notice a changed package-lock.json (other dependencies, other types) nor an output
//   deleted or edited by hand: either compiles everything again (recorded like the steps below).
// - The SDK's types (packages/sdk/src/schema.ts, generated from the built service's OpenAPI document), the SDK's
//   compilation and the console (`tsc --noEmit`, `vite build`) have no incremental mode: each runs when a SHA-256
//   of the files it reads, or of the files it writes, differs from the one recorded after its last successful
//   run (node_modules/.cache/commerce-build/). So any edited, added or deleted input rebuilds it, and so does an
//   output removed or changed by hand; `npm ci` starts from nothing.
//
//   node scripts/build.mjs            (npm run build) what changed
//   node scripts/build.mjs --force    (npm run build -- --force) everything
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const root = join(import.meta.dirname, '..');
const stamps = join(root, 'node_modules/.cache/commerce-build');
const force = process.argv.includes('--force');

/** Below a directory given as input or output, these are never read: installed packages, builds. */
const NOT_READ = new Set(['node_modules', 'dist']);

const steps = [
  {
    name: "the SDK's types",
    inputs: ['dist/src', 'packages/sdk/scripts', 'package-lock.json'],
    outputs: ['packages/sdk/src/schema.ts'],
    command: ['npm', 'run', 'generate', '-w', '@commerce/sdk'],
  },
  {
    name: 'the SDK',
    inputs: ['packages/sdk', 'package-lock.json'],
    outputs: ['packages/sdk/dist'],
    command: ['npm', 'run', 'compile', '-w', '@commerce/sdk'],
  },
  {
    // The console is bundled from the SDK's sources (vite.config.ts and tsconfig.json alias them), not its dist/.
    name: 'the admin console',
    inputs: ['packages/admin', 'packages/sdk/src', 'package-lock.json'],
    outputs: ['packages/admin/dist'],
    command: ['npm', 'run', 'build', '-w', '@commerce/admin'],
  },
];

// tsc -b looks at the times of its sources only: a new lock file, or its output changed since, compiles all again.
const service = () => `${hashOf(['package-lock.json'])} ${hashOf(['dist/src', 'dist/ormconfig.js'])}`;
const tsc = ['node', 'node_modules/typescript/bin/tsc', '-b', 'tsconfig.build.json'];
const compiled = run('the service', force || stampOf('service') !== service() ? [...tsc, '--force'] : tsc);
// Also after errors: tsc has recorded them and compiles again next time, only what it cannot see is checked here.
writeStamp('service', service());
if (!compiled) process.exit(1);

for (const step of steps) {
  const inputs = hashOf(step.inputs);
  if (!force && stampOf(step.name) === `${inputs} ${hashOf(step.outputs)}`) {
    console.log(`build: ${step.name}: up to date`);
    continue;
  }
  rmSync(stampFile(step.name), { force: true });
  if (!run(step.name, step.command)) process.exit(1);
  writeStamp(step.name, `${inputs} ${hashOf(step.outputs)}`);
}

function run(name, [command, ...args]) {
  console.log(`build: ${name}: ${[command, ...args].join(' ')}`);
  const { status, error } = spawnSync(command === 'node' ? process.execPath : command, args, {
    cwd: root,
    stdio: 'inherit',
  });
  if (error === undefined && status === 0) return true;
  console.error(`build: ${name} failed${error === undefined ? '' : `: ${error.message}`}`);
  return false;
}

/** SHA-256 of the files at these paths (each a file or a directory), their relative paths included. */
function hashOf(paths) {
  const hash = createHash('sha256');
  for (const file of paths.flatMap((path) => filesAt(join(root, path))).sort()) {
    hash.update(`${relative(root, file)}\0`);
    hash.update(readFileSync(file));
    hash.update('\0');
  }
  return hash.digest('hex');
}

function filesAt(path) {
  let stat;
  try {
    stat = statSync(path);
  } catch {
    return []; // absent: counts as no file
  }
  if (!stat.isDirectory()) return [path];
  return readdirSync(path)
    .filter((name) => !NOT_READ.has(name))
    .flatMap((name) => filesAt(join(path, name)));
}

function stampFile(name) {
  return join(stamps, `${name.replace(/[^a-z]+/gi, '-')}.txt`);
}

function stampOf(name) {
  try {
    return readFileSync(stampFile(name), 'utf8');
  } catch {
    return null;
  }
}

function writeStamp(name, value) {
  mkdirSync(stamps, { recursive: true });
  writeFileSync(stampFile(name), value);
}
