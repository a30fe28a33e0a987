import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { ADMIN_ENV, createAccount, loginAdmin, type Account } from './support/accounts.js';
import { eventually } from './support/eventually.js';
import { scrape } from './support/metrics.js';
import { placeOrder } from './support/orders.js';
import { createProduct } from './support/products.js';
import { startTestApp, type TestApp } from './support/test-app.js';
import { hasValidSignature, startWebhookReceiver, type WebhookReceiver } from './support/webhook-receiver.js';
import { EVENT_TYPES } from '../src/webhooks/event-types.js';
import { WebhookDeliveries } from '../src/webhooks/webhook-deliveries.js';
import { sqlDatetime } from '../src/database/timestamps.js';

interface Delivery {
  id: number;
  event_id: string;
  event_type: string;
  status: string;
  attempts: number;
  last_status_code: number | null;
  last_error: string | null;
  next_attempt_at: string | null;
  created_at: string;
}

// Long enough for the receiver, in this busy process, to answer in time: a late answer would be a retry.
const TIMEOUT_MS = 2000;

// Runs on SQLite, and on MariaDB/MySQL with a mysql:// TEST_DATABASE_URL. The receiver listens on 127.0.0.1,
// which only WEBHOOK_ALLOW_PRIVATE_NETWORKS=true lets webhooks reach; the refusals are tested with it off.
describe('webhooks', () => {
  let t: TestApp;
  let admin: Account;
  let user: Account;
  let receiver: WebhookReceiver;
  let product: { id: number };

  const api = () => request(t.url);
  const asAdmin = <T extends request.Test>(req: T) => req.auth(admin.token, { type: 'bearer' });
  const count = async (table: string) =>
    Number((await t.dataSource.query(`SELECT COUNT(*) AS n FROM ${table}`))[0].n);
  const register = async (body: object) =>
    (await asAdmin(api().post('/api/v1/admin/webhooks')).send(body).expect(201)).body.data as {
      id: number;
      secret: string;
      url: string;
      events: string[];
    };
  const deliveries = async (webhookId: number) =>
    (await asAdmin(api().get(`/api/v1/admin/webhooks/${webhookId}/deliveries?page_size=100`)).expect(200))
      .body.data as Delivery[];
  /** Waits until every delivery of the webhook has settled (succeeded or failed). */
  const settled = async (webhookId: number, expected: number, timeoutMs = 15_000) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const list = await deliveries(webhookId);
      if (list.length >= expected && list.every((delivery) => delivery.status !== 'pending')) return list;
      if (Date.now() > deadline) throw new Error(`deliveries not settled: ${JSON.stringify(list)}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    t = await startTestApp({
      ...ADMIN_ENV,
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      WEBHOOK_RETRY_SCHEDULE: '1s,2s',
      WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS),
    });
    admin = await loginAdmin(t);
    user = await createAccount(t);
    product = await createProduct(t, admin.token, { stock: 1000 });
  });

  afterAll(async () => {
    await t?.close();
    await receiver?.close();
  });

  describe('admin endpoints', () => {
    it('POST: 201 with a whsec_ secret shown only then and stored for signing; users 403, no token 401', async () => {
      const before = await count('webhooks');
      const denied = await api()
        .post('/api/v1/admin/webhooks')
        .auth(user.token, { type: 'bearer' })
        .send({ url: `${receiver.url}/x`, events: ['*'] })
        .expect(403);
      expect(denied.body).toEqual({
        code: 403,
        message: 'Forbidden',
        data: { details: 'Insufficient permission' },
      });
      await api()
        .post('/api/v1/admin/webhooks')
        .send({ url: `${receiver.url}/x`, events: ['*'] })
        .expect(401);
      await api().get('/api/v1/admin/webhooks').auth(user.token, { type: 'bearer' }).expect(403);
      expect(await count('webhooks')).toBe(before);

      const res = await asAdmin(api().post('/api/v1/admin/webhooks'))
        .send({ url: `${receiver.url}/crud`, events: ['order.created', 'order.created'], description: 'ERP' })
        .expect(201);
      const created = res.body.data;
      expect(res.body).toMatchObject({
        code: 201,
        message: 'Created',
        data: {
          id: expect.any(Number),
          url: `${receiver.url}/crud`,
          events: ['order.created'],
          description: 'ERP',
          active: true,
          secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
          created_at: expect.stringMatching(/\.\d{3}Z$/),
          updated_at: expect.any(String),
        },
      });
      const [row] = await t.dataSource.query(
        'SELECT url, events, description, secret, active FROM webhooks WHERE id = ?',
        [created.id],
      );
      expect(row).toEqual({
        url: `${receiver.url}/crud`,
        events: '["order.created"]',
        description: 'ERP',
        secret: created.secret,
        active: 1,
      });

      // The secret never comes back.
      const one = await asAdmin(api().get(`/api/v1/admin/webhooks/${created.id}`)).expect(200);
      const { secret: _secret, ...shown } = created;
      expect(one.body.data).toEqual(shown);
      const list = await asAdmin(api().get('/api/v1/admin/webhooks?page_size=100')).expect(200);
      expect(JSON.stringify(list.body)).not.toContain(created.secret);
      expect(list.body.meta).toEqual({
        page: 1,
        page_size: 100,
        total: before + 1,
        total_page: 1,
      });
      expect(list.body.data.at(-1)).toEqual(shown);
    });

    it('PUT changes only the fields sent (the secret stays); DELETE removes it with its deliveries; 404 after', async () => {
      const created = await register({ url: `${receiver.url}/put`, events: ['*'] });
      const res = await asAdmin(api().put(`/api/v1/admin/webhooks/${created.id}`))
        .send({ events: ['product.created'], active: false })
        .expect(200);
      expect(res.body.data).toMatchObject({
        url: `${receiver.url}/put`,
        events: ['product.created'],
        active: false,
        description: '',
      });
      expect(res.body.data.secret).toBeUndefined();
      const [row] = await t.dataSource.query('SELECT secret, active FROM webhooks WHERE id = ?', [
        created.id,
      ]);
      expect(row).toEqual({ secret: created.secret, active: 0 });

      await t.dataSource.query(
        "INSERT INTO webhook_deliveries (webhook_id, event_id, event_type, payload) VALUES (?, 'e-put', 'order.created', '{}')",
        [created.id],
      );
      await asAdmin(api().delete(`/api/v1/admin/webhooks/${created.id}`)).expect(200);
      expect(await t.dataSource.query('SELECT id FROM webhooks WHERE id = ?', [created.id])).toEqual([]);
      expect(
        await t.dataSource.query('SELECT id FROM webhook_deliveries WHERE webhook_id = ?', [created.id]),
      ).toEqual([]);
      const missing = await asAdmin(api().get(`/api/v1/admin/webhooks/${created.id}`)).expect(404);
      expect(missing.body.data).toEqual({ details: `Webhook ${created.id} not found` });
      await asAdmin(api().put(`/api/v1/admin/webhooks/${created.id}`))
        .send({ active: true })
        .expect(404);
      await asAdmin(api().delete(`/api/v1/admin/webhooks/${created.id}`)).expect(404);
      await asAdmin(api().get(`/api/v1/admin/webhooks/${created.id}/deliveries`)).expect(404);
    });

    it('400 naming the field and rule: unknown event, empty events, a non-http(s) URL; nothing written', async () => {
      const before = await count('webhooks');
      const refused = async (body: object) =>
        (await asAdmin(api().post('/api/v1/admin/webhooks')).send(body).expect(400)).body.data
          .errors as Array<{
          field: string;
          rule: string;
        }>;
      expect(await refused({ url: `${receiver.url}/x`, events: ['order.shipped'] })).toEqual([
        expect.objectContaining({ field: 'events', rule: 'isIn' }),
      ]);
      expect(await refused({ url: `${receiver.url}/x`, events: [] })).toEqual([
        expect.objectContaining({ field: 'events', rule: 'arrayNotEmpty' }),
      ]);
      for (const url of [
        'ftp://example.com/x',
        'file:///etc/passwd',
        'http://user:pass@example.com/',
        'example.com',
      ]) {
        expect(await refused({ url, events: ['*'] })).toEqual([
          expect.objectContaining({ field: 'url', rule: 'isUrl' }),
        ]);
      }
      expect(await refused({ events: ['*'] })).toEqual(
        expect.arrayContaining([expect.objectContaining({ field: 'url' })]),
      );
      expect(await count('webhooks')).toBe(before);
    });
  });

  describe('delivery', () => {
    it('an event reaches each subscribed endpoint once, signed: webhook-id is the event id, body {id, type, created_at, data}', async () => {
      const all = await register({ url: `${receiver.url}/signed`, events: ['*'] });
      const products = await register({ url: `${receiver.url}/products-only`, events: ['product.created'] });
      await createProduct(t, admin.token);
      const order = (await placeOrder(t, user.token, [[product.id, 1]]).expect(201)).body.data;

      const [created] = (await receiver.waitFor('/signed', 2)).filter(
        (request) => JSON.parse(request.body).type === 'order.created',
      );
      const body = JSON.parse(created.body);
      expect(Object.keys(body)).toEqual(['id', 'type', 'created_at', 'data']);
      expect(body).toEqual({
        id: expect.any(String),
        type: 'order.created',
        created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        data: expect.objectContaining({ order: expect.objectContaining({ id: order.id }) }),
      });
      expect(created.headers['webhook-id']).toBe(body.id);
      expect(Math.abs(Number(created.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(30);
      expect(created.headers['content-type']).toBe('application/json');
      expect(created.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
      expect(hasValidSignature(all.secret, created)).toBe(true);
      expect(hasValidSignature(products.secret, created)).toBe(false);

      const settledAll = await settled(all.id, 2);
      expect(settledAll.find((delivery) => delivery.event_type === 'order.created')).toMatchObject({
        id: expect.any(Number),
        event_id: body.id,
        event_type: 'order.created',
        status: 'succeeded',
        attempts: 1,
        last_status_code: 204,
        last_error: null,
        next_attempt_at: null,
        created_at: expect.any(String),
      });
      // The endpoint subscribed to product.created only got that one.
      const productOnly = await receiver.waitFor('/products-only', 1);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(receiver.to('/products-only').map((request) => JSON.parse(request.body).type)).toEqual([
        'product.created',
      ]);
      expect(hasValidSignature(products.secret, productOnly[0])).toBe(true);
      expect((await deliveries(products.id)).map((delivery) => delivery.event_type)).toEqual([
        'product.created',
      ]);
    });

    it('every event type is delivered with a valid signature', async () => {
      const all = await register({ url: `${receiver.url}/every-type`, events: ['*'] });
      const customer = await createAccount(t); // user.created
      const product = await createProduct(t, admin.token, { stock: 10 }); // product.created
      await asAdmin(api().put(`/api/v1/products/${product.id}`))
        .send({ price: 12 })
        .expect(200); // product.updated
      const paid = (await placeOrder(t, customer.token, [[product.id, 1]]).expect(201)).body.data; // order.created
      await asAdmin(api().patch(`/api/v1/orders/${paid.id}/status`))
        .send({ status: 'paid', payment_status: 'paid' })
        .expect(200); // order.paid, order.updated
      // A paid order is cancelled together with its refund (paid back by hand).
      await asAdmin(api().patch(`/api/v1/orders/${paid.id}/status`))
        .send({ status: 'cancelled', payment_status: 'refunded' })
        .expect(200); // order.cancelled, order.refunded
      const scarce = await createProduct(t, admin.token, { stock: 1 });
      const emptying = (await placeOrder(t, customer.token, [[scarce.id, 1]]).expect(201)).body.data;
      await api()
        .post(`/api/v1/orders/${emptying.id}/cancel`)
        .auth(customer.token, { type: 'bearer' })
        .expect(200); // product.back_in_stock
      const shipped = (await placeOrder(t, customer.token, [[product.id, 1]]).expect(201)).body.data;
      await asAdmin(api().patch(`/api/v1/orders/${shipped.id}/status`))
        .send({ status: 'paid', payment_status: 'paid' })
        .expect(200);
      const itemId = (await asAdmin(api().get(`/api/v1/orders/${shipped.id}`)).expect(200)).body.data.items[0]
        .id;
      const fulfilment = (
        await asAdmin(api().post(`/api/v1/admin/orders/${shipped.id}/fulfilments`))
          .send({ items: [{ order_item_id: itemId, quantity: 1 }] })
          .expect(201)
      ).body.data; // order.fulfilled
      await asAdmin(api().post(`/api/v1/admin/fulfilments/${fulfilment.id}/deliver`)).expect(200); // order.delivered
      const returnBody = { items: [{ order_item_id: itemId, quantity: 1 }] };
      const returnOf = async () =>
        (
          await api()
            .post(`/api/v1/orders/${shipped.id}/returns`)
            .auth(customer.token, { type: 'bearer' })
            .send(returnBody)
            .expect(201)
        ).body.data; // return.requested
      await asAdmin(api().post(`/api/v1/admin/returns/${(await returnOf()).id}/reject`))
        .send({ reason: 'Worn' })
        .expect(200); // return.rejected
      await asAdmin(api().post(`/api/v1/admin/returns/${(await returnOf()).id}/receive`))
        .send(returnBody)
        .expect(200); // return.received
      // sessions.revoked is the service's own: not delivered, even to "*".
      await api().delete('/api/v1/sessions').auth(customer.token, { type: 'bearer' }).expect(200);
      const other = await createProduct(t, admin.token);
      await asAdmin(api().delete(`/api/v1/products/${other.id}`)).expect(200); // product.deleted

      const deadline = Date.now() + 15_000;
      const types = () => new Set(receiver.to('/every-type').map((request) => JSON.parse(request.body).type));
      while (EVENT_TYPES.some((type) => !types().has(type)) && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect([...types()].sort()).toEqual([...EVENT_TYPES].sort());
      await new Promise((resolve) => setTimeout(resolve, 300));
      await settled(all.id, receiver.to('/every-type').length);
      const dataOf = (type: string) =>
        receiver
          .to('/every-type')
          .map((request) => JSON.parse(request.body))
          .filter((body) => body.type === type)
          .map((body) => body.data);
      expect(dataOf('user.created')).toEqual([expect.objectContaining({ id: customer.id })]);
      const ids = (type: string, id: (data: { id: number }) => number = (data) => data.id) =>
        dataOf(type)
          .map(id)
          .sort((x, y) => x - y);
      expect(ids('product.created')).toEqual([product.id, scarce.id, other.id]);
      expect(dataOf('product.updated')).toEqual([expect.objectContaining({ id: product.id, price: 12 })]);
      expect(dataOf('product.deleted')).toEqual([expect.objectContaining({ id: other.id })]);
      expect(dataOf('product.back_in_stock')).toEqual([expect.objectContaining({ id: scarce.id, stock: 1 })]);
      for (const type of ['order.paid', 'order.refunded']) {
        expect(dataOf(type).filter((data) => data.order.id !== shipped.id)).toEqual([
          expect.objectContaining({
            userId: customer.id,
            order: expect.objectContaining({ id: paid.id }),
            items: [expect.objectContaining({ product_id: product.id, quantity: 1 })],
          }),
        ]);
      }
      expect(dataOf('order.paid').map((data) => data.order.id)).toEqual([paid.id, shipped.id]);
      for (const type of ['order.fulfilled', 'order.delivered', 'return.received']) {
        expect(dataOf(type)).toEqual([
          expect.objectContaining({ order: expect.objectContaining({ id: shipped.id }) }),
        ]);
      }
      expect(dataOf('return.requested')).toHaveLength(2);
      expect(
        ids('order.cancelled', (data) => (data as unknown as { order: { id: number } }).order.id),
      ).toEqual([paid.id, emptying.id]);
      for (const request of receiver.to('/every-type')) {
        expect(hasValidSignature(all.secret, request)).toBe(true);
        expect(request.headers['webhook-id']).toBe(JSON.parse(request.body).id);
      }
      const list = await settled(all.id, receiver.to('/every-type').length);
      expect(list.every((delivery) => delivery.status === 'succeeded' && delivery.attempts === 1)).toBe(true);
    });

    it('a redispatched event makes no second delivery (one per endpoint and event id)', async () => {
      const endpoint = await register({ url: `${receiver.url}/redispatch`, events: ['order.created'] });
      const event = {
        id: `redispatch-${Date.now()}`,
        type: 'order.created' as const,
        created_at: new Date().toISOString(),
        data: { order: { id: 1 } } as never,
      };
      const dispatcher = t.app.get(WebhookDeliveries);
      await dispatcher.createDeliveries(event);
      await receiver.waitFor('/redispatch', 1);
      await dispatcher.createDeliveries(event);
      await dispatcher.createDeliveries(event);
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(receiver.to('/redispatch')).toHaveLength(1);
      expect(await deliveries(endpoint.id)).toEqual([
        expect.objectContaining({ event_id: event.id, status: 'succeeded', attempts: 1 }),
      ]);
    });

    it('the sweep queues a pending delivery whose job was lost, and removes settled ones past WEBHOOK_DELIVERY_RETENTION', async () => {
      const endpoint = await register({ url: `${receiver.url}/swept`, events: ['order.created'] });
      const ago = (ms: number) => sqlDatetime(new Date(Date.now() - ms));
      const payload = JSON.stringify({
        id: 'swept-lost',
        type: 'order.created',
        created_at: ago(0),
        data: {},
      });
      const insert = (eventId: string, status: string, createdAt: string, nextAttemptAt: string | null) =>
        t.dataSource.query(
          'INSERT INTO webhook_deliveries (webhook_id, event_id, event_type, payload, status, next_attempt_at, created_at) ' +
            "VALUES (?, ?, 'order.created', ?, ?, ?, ?)",
          [endpoint.id, eventId, payload, status, nextAttemptAt, createdAt],
        );
      const day = 86_400_000;
      await insert('swept-lost', 'pending', ago(60_000), ago(60_000)); // created, then the process died
      await insert('swept-old-ok', 'succeeded', ago(31 * day), null);
      await insert('swept-old-failed', 'failed', ago(31 * day), null);
      await insert('swept-recent', 'succeeded', ago(29 * day), null);

      await t.app.get(WebhookDeliveries).sweep();
      const [sent] = await receiver.waitFor('/swept', 1);
      expect(sent.body).toBe(payload);
      expect(sent.headers['webhook-id']).toBe('swept-lost');
      expect(hasValidSignature(endpoint.secret, sent)).toBe(true);
      await settled(endpoint.id, 2);
      expect(
        (await deliveries(endpoint.id)).map((delivery) => [
          delivery.event_id,
          delivery.status,
          delivery.attempts,
        ]),
      ).toEqual([
        ['swept-recent', 'succeeded', 0],
        ['swept-lost', 'succeeded', 1],
      ]);
      const rows = (await t.dataSource.query(
        'SELECT event_id, status FROM webhook_deliveries WHERE webhook_id = ? ORDER BY id',
        [endpoint.id],
      )) as Array<{ event_id: string; status: string }>;
      expect(rows.map((row) => row.event_id)).toEqual(['swept-lost', 'swept-recent']);
    });

    it('a 500 is retried after 1 s and 2 s (WEBHOOK_RETRY_SCHEDULE=1s,2s), then the delivery has failed; a manual retry sends it again', async () => {
      receiver.answer('/failing', 500);
      const endpoint = await register({ url: `${receiver.url}/failing`, events: ['order.created'] });
      const before = await scrape(t.url);
      await placeOrder(t, user.token, [[product.id, 1]]).expect(201);
      const requests = await receiver.waitFor('/failing', 3);
      const [delivery] = await settled(endpoint.id, 1);
      expect(delivery).toMatchObject({
        id: expect.any(Number),
        event_id: JSON.parse(requests[0].body).id,
        event_type: 'order.created',
        status: 'failed',
        attempts: 3,
        last_status_code: 500,
        last_error: 'answered HTTP 500',
        next_attempt_at: null,
        created_at: expect.any(String),
      });
      // The same event (webhook-id) and body each time, signed anew; the waits follow the schedule.
      expect(new Set(requests.map((request) => request.headers['webhook-id'])).size).toBe(1);
      expect(new Set(requests.map((request) => request.body)).size).toBe(1);
      expect(requests.every((request) => hasValidSignature(endpoint.secret, request))).toBe(true);
      const gaps = [requests[1].at - requests[0].at, requests[2].at - requests[1].at];
      expect(gaps[0]).toBeGreaterThanOrEqual(950);
      expect(gaps[0]).toBeLessThan(2500);
      expect(gaps[1]).toBeGreaterThanOrEqual(1950);
      expect(gaps[1]).toBeLessThan(3500);
      await new Promise((resolve) => setTimeout(resolve, 1200));
      expect(receiver.to('/failing')).toHaveLength(3);

      const after = await scrape(t.url);
      const delta = (result: string) =>
        (after.value('commerce_webhook_deliveries_total', { result }) ?? 0) -
        (before.value('commerce_webhook_deliveries_total', { result }) ?? 0);
      expect([delta('retrying'), delta('failed')]).toEqual([2, 1]);
      expect(after.text).toContain(
        'commerce_webhook_delivery_duration_seconds_bucket{le="0.01",result="failed"}',
      );

      // Manual retry: the receiver works again; the failed delivery is sent once more, now.
      receiver.answer('/failing', 200);
      const retried = await asAdmin(
        api().post(`/api/v1/admin/webhooks/${endpoint.id}/deliveries/${delivery.id}/retry`),
      ).expect(200);
      expect(retried.body.data).toMatchObject({ id: delivery.id, status: 'pending', attempts: 3 });
      const [fourth] = (await receiver.waitFor('/failing', 4)).slice(3);
      expect(fourth.headers['webhook-id']).toBe(delivery.event_id);
      expect(hasValidSignature(endpoint.secret, fourth)).toBe(true);
      expect((await settled(endpoint.id, 1))[0]).toMatchObject({
        status: 'succeeded',
        attempts: 4,
        last_status_code: 200,
        last_error: null,
        next_attempt_at: null,
      });
      const [row] = await t.dataSource.query('SELECT status, attempts FROM webhook_deliveries WHERE id = ?', [
        delivery.id,
      ]);
      expect(row).toEqual({ status: 'succeeded', attempts: 4 });

      // Another webhook's delivery id, or an unknown one: 404.
      const other = await register({ url: `${receiver.url}/other`, events: ['user.created'] });
      const notHis = await asAdmin(
        api().post(`/api/v1/admin/webhooks/${other.id}/deliveries/${delivery.id}/retry`),
      ).expect(404);
      expect(notHis.body.data).toEqual({
        details: `Delivery ${delivery.id} of webhook ${other.id} not found`,
      });
      await api()
        .post(`/api/v1/admin/webhooks/${endpoint.id}/deliveries/${delivery.id}/retry`)
        .auth(user.token, { type: 'bearer' })
        .expect(403);
    });

    it('no answer within WEBHOOK_TIMEOUT_MS is a failed attempt, retried by the schedule, then failed', async () => {
      receiver.answer('/hanging', 'hang');
      const endpoint = await register({ url: `${receiver.url}/hanging`, events: ['order.created'] });
      await placeOrder(t, user.token, [[product.id, 1]]).expect(201);
      const requests = await receiver.waitFor('/hanging', 3, 30_000);
      const [delivery] = await settled(endpoint.id, 1, 30_000);
      expect(delivery).toMatchObject({
        status: 'failed',
        attempts: 3,
        last_status_code: null,
        last_error: `no complete answer within ${TIMEOUT_MS} ms`,
        next_attempt_at: null,
      });
      // The receiver notes a request when this process gets to it, on a busy machine some 100 ms late: each
      // retry waited the timeout and the schedule's delay, give or take that.
      const gaps = [requests[1].at - requests[0].at, requests[2].at - requests[1].at];
      expect(gaps[0]).toBeGreaterThanOrEqual(1000 + TIMEOUT_MS - 500);
      expect(gaps[1]).toBeGreaterThanOrEqual(2000 + TIMEOUT_MS - 500);
      expect(gaps[1]).toBeLessThan(4000 + TIMEOUT_MS);
    });

    it('a pending delivery shows its next attempt; an inactive webhook gets no new deliveries', async () => {
      receiver.answer('/later', 503);
      const endpoint = await register({ url: `${receiver.url}/later`, events: ['order.created'] });
      await placeOrder(t, user.token, [[product.id, 1]]).expect(201);
      await receiver.waitFor('/later', 1);
      // The receiver has answered 503; the service records it just after.
      await eventually(async () => (await deliveries(endpoint.id))[0]?.last_status_code === 503);
      const [pending] = await deliveries(endpoint.id);
      expect(pending).toMatchObject({ status: 'pending', attempts: 1, last_status_code: 503 });
      const due = Date.parse(pending.next_attempt_at!) - receiver.to('/later')[0].at;
      expect(due).toBeGreaterThan(700);
      expect(due).toBeLessThan(1300);

      await asAdmin(api().put(`/api/v1/admin/webhooks/${endpoint.id}`))
        .send({ active: false })
        .expect(200);
      await placeOrder(t, user.token, [[product.id, 1]]).expect(201);
      const [settledOne] = await settled(endpoint.id, 1);
      expect(settledOne).toMatchObject({
        id: pending.id,
        status: 'failed',
        attempts: 2,
        last_error: 'the webhook is inactive',
      });
      expect(await deliveries(endpoint.id)).toHaveLength(1);
      expect(receiver.to('/later')).toHaveLength(1);
    });
  });
});

describe('webhooks to non-public addresses (WEBHOOK_ALLOW_PRIVATE_NETWORKS off)', () => {
  let t: TestApp;
  let admin: Account;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    t = await startTestApp({ ...ADMIN_ENV, WEBHOOK_RETRY_SCHEDULE: '1s' });
    admin = await loginAdmin(t);
  });

  afterAll(async () => {
    await t?.close();
    await receiver?.close();
  });

  it.each([
    ['http://127.0.0.1:8080/hook', '127.0.0.1 is a loopback address'],
    ['http://10.1.2.3/hook', '10.1.2.3 is a private address'],
    ['http://169.254.169.254/latest/meta-data', '169.254.169.254 is a link-local address'],
    ['http://[::1]/hook', '::1 is a loopback address'],
    ['http://[::ffff:127.0.0.1]/hook', 'is a loopback address'],
    ['http://100.64.0.1/hook', 'is a shared (CGNAT) address'],
    ['http://0.0.0.0/hook', 'is a unspecified address'],
    ['https://localhost/hook', 'localhost is '],
  ])('registration refuses %s: 400 naming url and publicAddress, nothing written', async (url, reason) => {
    const res = await request(t.url)
      .post('/api/v1/admin/webhooks')
      .auth(admin.token, { type: 'bearer' })
      .send({ url, events: ['*'] })
      .expect(400);
    expect(res.body.data.errors).toEqual([
      { field: 'url', rule: 'publicAddress', message: expect.stringContaining(reason) },
    ]);
    expect(res.body.data.details).toBe(res.body.data.errors[0].message);
    expect(Number((await t.dataSource.query('SELECT COUNT(*) AS n FROM webhooks'))[0].n)).toBe(0);
  });

  it('PUT refuses a change of url to a private address; the stored url stays', async () => {
    const created = await request(t.url)
      .post('/api/v1/admin/webhooks')
      .auth(admin.token, { type: 'bearer' })
      .send({ url: 'https://93.184.216.34/hook', events: ['*'] })
      .expect(201);
    const res = await request(t.url)
      .put(`/api/v1/admin/webhooks/${created.body.data.id}`)
      .auth(admin.token, { type: 'bearer' })
      .send({ url: 'http://192.168.0.10/hook', description: 'moved' })
      .expect(400);
    expect(res.body.data.errors).toEqual([
      {
        field: 'url',
        rule: 'publicAddress',
        message: 'url must reach a public address: 192.168.0.10 is a private address',
      },
    ]);
    expect(
      await t.dataSource.query('SELECT url, description FROM webhooks WHERE id = ?', [created.body.data.id]),
    ).toEqual([{ url: 'https://93.184.216.34/hook', description: '' }]);
    await t.dataSource.query('DELETE FROM webhooks');
  });

  // URLs of the webhook shape (http, no user name) that the WHATWG URL parser, which the deliveries use, refuses.
  // Its verdict on internationalized names differs between Node.js versions (Node 24's accepts an xn-- label that
  // does not decode, and the host then fails the address check instead): the cases are the ones it refuses here.
  const REFUSED_BY_SOME_PARSER: Array<[url: string, message: string]> = [
    [
      'http://xn--localhost:8080/hook',
      'url host xn--localhost is not a valid internationalized domain name: xn--localhost does not decode',
    ],
    [
      'https://shop.xn--a.example/hook',
      'url host shop.xn--a.example is not a valid internationalized domain name: xn--a does not decode',
    ],
    ['http://[::1%25lo]:8080/hook', 'url host [::1%25lo] carries an IPv6 zone id, which a URL may not carry'],
    [
      'http://[fe80::1%eth0]/hook',
      'url host [fe80::1%eth0] carries an IPv6 zone id, which a URL may not carry',
    ],
    ['http://\u00ad/hook', 'url host \u00ad is not a valid host name'],
  ];
  const UNPARSABLE = REFUSED_BY_SOME_PARSER.filter(([url]) => !URL.canParse(url));

  it.each(REFUSED_BY_SOME_PARSER)(
    'registration of %s is a 400 naming url on every Node.js version, never a 500; nothing written',
    async (url) => {
      const res = await request(t.url)
        .post('/api/v1/admin/webhooks')
        .auth(admin.token, { type: 'bearer' })
        .send({ url, events: ['*'] })
        .expect(400);
      expect(res.body.data.errors).toEqual([expect.objectContaining({ field: 'url' })]);
      expect(Number((await t.dataSource.query('SELECT COUNT(*) AS n FROM webhooks'))[0].n)).toBe(0);
    },
  );

  it.each(UNPARSABLE)(
    'registration refuses %s, which the URL parser of the deliveries refuses: 400 naming url and isUrl, nothing written',
    async (url, message) => {
      const res = await request(t.url)
        .post('/api/v1/admin/webhooks')
        .auth(admin.token, { type: 'bearer' })
        .send({ url, events: ['*'] })
        .expect(400);
      expect(res.body).toEqual({
        code: 400,
        message: 'Bad Request',
        data: { details: message, errors: [{ field: 'url', rule: 'isUrl', message }] },
      });
      expect(Number((await t.dataSource.query('SELECT COUNT(*) AS n FROM webhooks'))[0].n)).toBe(0);
    },
  );

  it('PUT refuses a change of url to one the URL parser refuses or a port out of range, beside the other fields; the webhook stays', async () => {
    const created = await request(t.url)
      .post('/api/v1/admin/webhooks')
      .auth(admin.token, { type: 'bearer' })
      .send({ url: 'https://93.184.216.34/hook', events: ['*'] })
      .expect(201);
    const shape = 'url must be an http:// or https:// URL without user name or password';
    const portsOutOfRange = [
      'http://93.184.216.34:0/hook',
      'http://93.184.216.34:65536/',
      'http://shop.example:99999/',
    ];
    for (const [url, message] of [...UNPARSABLE, ...portsOutOfRange.map((port) => [port, shape])]) {
      const res = await request(t.url)
        .put(`/api/v1/admin/webhooks/${created.body.data.id}`)
        .auth(admin.token, { type: 'bearer' })
        .send({ url, description: 'moved', events: [] })
        .expect(400);
      expect(res.body.data.errors).toEqual([
        { field: 'url', rule: 'isUrl', message },
        { field: 'events', rule: 'arrayNotEmpty', message: 'events should not be empty' },
      ]);
    }
    expect(
      await t.dataSource.query('SELECT url, description FROM webhooks WHERE id = ?', [created.body.data.id]),
    ).toEqual([{ url: 'https://93.184.216.34/hook', description: '' }]);
    await t.dataSource.query('DELETE FROM webhooks');
  });

  it('an endpoint that now resolves to a loopback address is refused at delivery: nothing sent, the attempt failed', async () => {
    // As if the name had resolved to a public address at registration: the row is written directly.
    await t.dataSource.query(
      "INSERT INTO webhooks (url, events, description, secret) VALUES (?, '[\"order.created\"]', '', ?)",
      [`${receiver.url}/private`, 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'],
    );
    const product = await createProduct(t, admin.token);
    await placeOrder(t, (await createAccount(t)).token, [[product.id, 1]]).expect(201);
    const deadline = Date.now() + 10_000;
    let rows: Array<{
      status: string;
      attempts: number;
      last_error: string | null;
      last_status_code: number | null;
    }>;
    do {
      await new Promise((resolve) => setTimeout(resolve, 100));
      rows = await t.dataSource.query(
        'SELECT status, attempts, last_error, last_status_code FROM webhook_deliveries',
      );
    } while (rows[0]?.status !== 'failed' && Date.now() < deadline);
    expect(rows).toEqual([
      {
        status: 'failed',
        attempts: 2,
        last_status_code: null,
        last_error: 'url must reach a public address: 127.0.0.1 is a loopback address',
      },
    ]);
    expect(receiver.received).toEqual([]);
  });
});
