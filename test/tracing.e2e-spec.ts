import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import mysql from 'mysql2/promise';
import { ADMIN_ENV, createAccount, loginAdmin, type Account } from './support/accounts.js';
import { buildService, startAppProcess, type AppProcess } from './support/app-process.js';
import { placeOrder as placeOrderOf } from './support/orders.js';
import { createProduct } from './support/products.js';
import { createTestDatabase } from './support/test-app.js';

// Selected by jest.config.cjs only when TEST_DATABASE_URL is a mysql:// URL (the mysql2 spans are the point).

const SPAN_KIND_SERVER = 2;

interface ExportedSpan {
  scope: string;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: Record<string, unknown>;
}

/** An OTLP/HTTP (JSON) trace receiver: what a collector would get from the service. */
class OtlpReceiver {
  readonly spans: ExportedSpan[] = [];
  readonly contentTypes = new Set<string>();
  private readonly server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      this.contentTypes.add(`${req.method} ${req.url} ${req.headers['content-type']}`);
      const body = JSON.parse(Buffer.concat(chunks).toString());
      for (const resource of body.resourceSpans ?? []) {
        for (const scoped of resource.scopeSpans ?? []) {
          for (const span of scoped.spans ?? []) {
            const attributes: Record<string, unknown> = {};
            for (const { key, value } of span.attributes ?? []) attributes[key] = Object.values(value)[0];
            this.spans.push({ ...span, scope: scoped.scope.name, attributes });
          }
        }
      }
      res.writeHead(200, { 'Content-Type': 'application/json' }).end('{}');
    });
  });

  async start(): Promise<string> {
    this.server.listen(0, '127.0.0.1');
    await once(this.server, 'listening');
    return `http://127.0.0.1:${(this.server.address() as { port: number }).port}`;
  }

  stop(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  /** Waits until the spans of one trace include what `complete` looks for. */
  async trace(traceId: string, complete: (spans: ExportedSpan[]) => boolean): Promise<ExportedSpan[]> {
    for (let attempt = 0; attempt < 100; attempt++) {
      const spans = this.spans.filter((span) => span.traceId === traceId);
      if (complete(spans)) return spans;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(
      `trace ${traceId} incomplete: ${JSON.stringify(this.spans.filter((s) => s.traceId === traceId))}`,
    );
  }
}

describe('tracing with OTEL_EXPORTER_OTLP_ENDPOINT (the built service as a process, on MySQL)', () => {
  const receiver = new OtlpReceiver();
  let app: AppProcess;
  let databaseUrl: string;
  let dropDatabase: () => Promise<void>;
  let buyer: Account;
  let productId: number;

  beforeAll(async () => {
    buildService();
    const endpoint = await receiver.start();
    const database = await createTestDatabase();
    databaseUrl = database.url;
    dropDatabase = database.drop;
    app = await startAppProcess({
      ...ADMIN_ENV,
      DATABASE_URL: database.url,
      JWT_SECRET: 'tracing-test-secret-tracing-test-secret',
      LOG_LEVEL: 'log',
      OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_BSP_SCHEDULE_DELAY: '100',
    });
    const admin = await loginAdmin(app);
    buyer = await createAccount(app);
    productId = (await createProduct(app, admin.token, { stock: 10 })).id;
  }, 120_000);

  afterAll(async () => {
    await app?.stop();
    await receiver.stop();
    await dropDatabase?.();
  });

  const placeOrder = (headers: Record<string, string>) =>
    placeOrderOf(app, buyer.token, [[productId, 2]], { headers });

  /** The service's JSON log entry of one request, found by its request id (written as the response ends). */
  const requestLogEntry = async (requestId: string) => {
    for (let attempt = 0; attempt < 50; attempt++) {
      const entry = app
        .output()
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line))
        .find((e) => e.message?.msg === 'request' && e.message.requestId === requestId);
      if (entry !== undefined) return entry;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`no log entry for request ${requestId}:\n${app.output()}`);
  };

  const isOrderCreation = (spans: ExportedSpan[]) =>
    spans.some((s) => s.scope.endsWith('instrumentation-http') && s.kind === SPAN_KIND_SERVER) &&
    spans.some((s) => s.scope.endsWith('instrumentation-mysql2') && s.name === 'COMMIT');

  it('exports one trace with the HTTP, Express and mysql2 spans of an order creation; its log line has the trace id', async () => {
    const res = await placeOrder({ 'X-Request-Id': 'traced-order-1' }).expect(201);
    const [order] = await queryDatabase('SELECT id, status FROM orders WHERE id = ?', [res.body.data.id]);
    expect(order).toMatchObject({ status: 'pending' });

    const logged = await requestLogEntry('traced-order-1');
    expect(logged).toMatchObject({ message: { method: 'POST', path: '/api/v1/orders', status: 201 } });
    expect(logged.traceId).toMatch(/^[0-9a-f]{32}$/);

    const spans = await receiver.trace(logged.traceId, isOrderCreation);
    const server = spans.filter((s) => s.scope.endsWith('instrumentation-http'));
    expect(server).toHaveLength(1);
    expect(server[0]).toMatchObject({ kind: SPAN_KIND_SERVER, name: 'POST /api/v1/orders' });
    expect(server[0].attributes).toMatchObject({ 'http.route': '/api/v1/orders' });
    expect(server[0].parentSpanId ?? '').toBe(''); // no traceparent sent: the trace starts here
    expect(logged.spanId).toBe(server[0].spanId);

    const express = spans.filter((s) => s.scope.endsWith('instrumentation-express'));
    expect(express.map((s) => s.name)).toEqual(expect.arrayContaining(['request handler']));
    for (const span of express) expect(span.parentSpanId).toBe(server[0].spanId);

    // The transaction: stock taken, order and its item inserted, committed, each under the request.
    const queries = spans.filter((s) => s.scope.endsWith('instrumentation-mysql2'));
    const statements = queries.map((s) =>
      String(s.attributes['db.statement'] ?? s.attributes['db.query.text']),
    );
    expect(queries.map((s) => s.name)).toEqual(
      expect.arrayContaining(['START', 'UPDATE', 'INSERT', 'INSERT', 'COMMIT']),
    );
    expect(statements.some((sql) => /^UPDATE products SET stock = stock - /.test(sql))).toBe(true);
    expect(statements.some((sql) => /^INSERT INTO `?orders`? \(/.test(sql))).toBe(true);
    expect(statements.some((sql) => /^INSERT INTO `?order_items`? \(/.test(sql))).toBe(true);
    const ids = new Set(spans.map((s) => s.spanId));
    for (const query of queries) expect(ids.has(query.parentSpanId!)).toBe(true);
  });

  it("continues the caller's trace from its traceparent header", async () => {
    const traceId = randomBytes(16).toString('hex');
    const parentId = randomBytes(8).toString('hex');
    await placeOrder({
      traceparent: `00-${traceId}-${parentId}-01`,
      'X-Request-Id': 'traced-order-2',
    }).expect(201);
    expect(await requestLogEntry('traced-order-2')).toMatchObject({ traceId });
    const spans = await receiver.trace(traceId, isOrderCreation);
    const server = spans.find((s) => s.scope.endsWith('instrumentation-http') && s.kind === SPAN_KIND_SERVER);
    expect(server?.parentSpanId).toBe(parentId);
    expect(receiver.contentTypes).toEqual(new Set(['POST /v1/traces application/json']));
  });

  async function queryDatabase(sql: string, params: unknown[]) {
    const connection = await mysql.createConnection(databaseUrl);
    try {
      const [rows] = await connection.query(sql, params);
      return rows as Record<string, unknown>[];
    } finally {
      await connection.end();
    }
  }
});
