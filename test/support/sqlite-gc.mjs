// Run with --expose-gc: opens an in-memory database with the SQLite driver named in argv[2], prepares 500 000
// statements and drops them, with a garbage collection posted to the event loop after every 5000, so that some
// of them are freed while no JavaScript runs (as V8 does by itself under memory pressure). A driver whose
// statements cannot be freed there aborts the process; otherwise it prints the driver's version.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const name = process.argv[2];
const Database = require(name);
const db = new Database(':memory:');
db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT)');
let round = 0;
function next() {
  for (let i = 0; i < 5000; i++) db.prepare(`SELECT id, name FROM t WHERE id = ${i}`).all();
  if (++round === 100) {
    db.close();
    process.stdout.write(require(`${name}/package.json`).version);
    return;
  }
  globalThis.gc({ type: 'major', execution: 'async' });
  setTimeout(next, 20);
}
next();
