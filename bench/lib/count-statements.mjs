// Preloaded (node --import) by bench/statements.mjs into a server: counts the SQL statements each HTTP request sends
// through mysql2 (those of its own async context, so background jobs are left out) and appends
// `<method> <url> <status> <count>` and the statements to the file STATEMENT_LOG when the response ends. The
// session settings a new pooled connection sends first (SET ...) are not the request's and are left out.
import { AsyncLocalStorage } from 'node:async_hooks';
import { appendFileSync } from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import { join } from 'node:path';

// The class every mysql2 connection (pooled or not) of the server is made from.
const connection = createRequire(import.meta.url)(
  join(process.cwd(), 'node_modules/mysql2/lib/base/connection.js'),
);
const requests = new AsyncLocalStorage();
const file = process.env.STATEMENT_LOG;

for (const name of ['query', 'execute']) {
  const original = connection.prototype[name];
  connection.prototype[name] = function (sql, ...rest) {
    const statements = requests.getStore();
    const text = typeof sql === 'string' ? sql : sql?.sql;
    if (statements !== undefined && text !== undefined && !text.startsWith('SET ')) {
      statements.push(text.replace(/\s+/g, ' '));
    }
    return original.call(this, sql, ...rest);
  };
}

const emit = http.Server.prototype.emit;
http.Server.prototype.emit = function (event, request, response) {
  if (event !== 'request') return emit.apply(this, arguments);
  const statements = [];
  // Express rewrites request.url while routing.
  const url = request.url;
  response.on('finish', () => {
    const listed = statements.map((text) => `  ${text}\n`).join('');
    appendFileSync(file, `${request.method} ${url} ${response.statusCode} ${statements.length}\n${listed}`);
  });
  return requests.run(statements, () => emit.apply(this, arguments));
};
