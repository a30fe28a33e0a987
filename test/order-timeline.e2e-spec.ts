import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { ValidationFailedException } from '../src/common/validation.js';
import { TransactionRunner } from '../src/database/transaction-runner.js';
import { OrderHistory } from '../src/orders/order-history.js';
import { ADMIN_ENV, createAccount, loginAdmin, type Account } from './support/accounts.js';
import { eventually } from './support/eventually.js';
import { createProduct } from './support/products.js';
import { TestSmtpServer } from './support/smtp-server.js';
import { startTestApp, type TestApp } from './support/test-app.js';

// DESIGN.md §16 "After the order": manual payments refunded like any other, staff notes, the admin timeline.
describe('manual payments, order notes and the order timeline', () => {
  let smtp: TestSmtpServer;
  let t: TestApp;
  let admin: Account;
  let buyer: Account;
  let productId: number;

  beforeAll(async () => {
    smtp = await TestSmtpServer.create();
    t = await startTestApp({
      ...ADMIN_ENV,
      SMTP_URL: smtp.url,
      MAIL_RETRY_BACKOFF_MS: '200',
      JOBS_POLL_INTERVAL_MS: '100',
    });
    admin = await loginAdmin(t);
    buyer = await createAccount(t);
    productId = (await createProduct(t, admin.token, { stock: 100, price: 12.5 })).id;
  });

  afterAll(async () => {
    await t?.close();
    await smtp?.stop();
  });

  const api = () => request(t.url);
  const place = async (method = 'bank_transfer') =>
    (
      await api()
        .post('/api/v1/orders')
        .auth(buyer.token, { type: 'bearer' })
        .send({
          items: [{ product_id: productId, quantity: 2 }],
          shipping_address: '1 Main St',
          payment_method: method,
        })
        .expect(201)
    ).body.data as { id: number; order_number: string };
  const setStatus = (orderId: number, body: object, token = admin.token) =>
    api().patch(`/api/v1/orders/${orderId}/status`).auth(token, { type: 'bearer' }).send(body);
  const refund = (orderId: number, body: object = {}) =>
    api().post(`/api/v1/admin/orders/${orderId}/refunds`).auth(admin.token, { type: 'bearer' }).send(body);
  const orderRow = async (orderId: number) =>
    (await t.dataSource.query('SELECT status, payment_status FROM orders WHERE id = ?', [orderId]))[0];
  const paymentRows = async (orderId: number) =>
    (
      await t.dataSource.query(
        'SELECT provider, status, amount_cents, refunded_cents, recorded_by, recorded_at, live_order_id ' +
          'FROM payments WHERE order_id = ? ORDER BY id',
        [orderId],
      )
    ).map((row: Record<string, unknown>) => ({
      provider: row.provider,
      status: row.status,
      amount_cents: Number(row.amount_cents),
      refunded_cents: Number(row.refunded_cents),
      recorded_by: row.recorded_by === null ? null : Number(row.recorded_by),
      recorded: row.recorded_at !== null,
    }));
  const refundRows = async (orderId: number) =>
    (
      await t.dataSource.query(
        'SELECT r.amount_cents, r.status, r.reason, r.requested_by FROM payment_refunds r ' +
          'INNER JOIN payments p ON p.id = r.payment_id WHERE p.order_id = ? ORDER BY r.id',
        [orderId],
      )
    ).map((row: Record<string, unknown>) => ({
      amount_cents: Number(row.amount_cents),
      status: row.status,
      reason: row.reason,
      requested_by: row.requested_by === null ? null : Number(row.requested_by),
    }));
  const eventsOf = async (orderId: number) =>
    (
      await t.dataSource.query(
        'SELECT type, data FROM outbox_events WHERE order_id = ? ORDER BY created_at, id',
        [orderId],
      )
    ).map((row: { type: string; data: string }) => ({ type: row.type, data: JSON.parse(row.data) }));
  const sentKinds = async (orderId: number) =>
    (await eventsOf(orderId))
      .filter((event: { type: string }) => event.type === 'order.email_sent')
      .map((event: { data: { kind: string } }) => event.data.kind);

  describe('manual payments', () => {
    it('marking a bank-transfer order paid records a manual payment of the amount due by the admin; it is refunded in part, then the rest, through the refunds endpoint', async () => {
      const order = await place();
      await setStatus(order.id, { status: 'paid', payment_status: 'paid' }).expect(200);
      expect(await orderRow(order.id)).toEqual({ status: 'paid', payment_status: 'paid' });
      expect(await paymentRows(order.id)).toEqual([
        {
          provider: 'manual',
          status: 'paid',
          amount_cents: 2500,
          refunded_cents: 0,
          recorded_by: admin.id,
          recorded: true,
        },
      ]);

      const part = await refund(order.id, { amount: 10, reason: 'one lamp broken' }).expect(201);
      expect(part.body.data).toMatchObject({ amount: 10, status: 'succeeded', reason: 'one lamp broken' });
      expect(await orderRow(order.id)).toEqual({ status: 'paid', payment_status: 'partially_refunded' });
      expect((await paymentRows(order.id))[0]).toMatchObject({
        status: 'partially_refunded',
        refunded_cents: 1000,
      });

      const rest = await refund(order.id).expect(201);
      expect(rest.body.data).toMatchObject({ amount: 15, status: 'succeeded' });
      expect(await orderRow(order.id)).toEqual({ status: 'paid', payment_status: 'refunded' });
      expect((await paymentRows(order.id))[0]).toMatchObject({ status: 'refunded', refunded_cents: 2500 });
      expect(await refundRows(order.id)).toEqual([
        { amount_cents: 1000, status: 'succeeded', reason: 'one lamp broken', requested_by: admin.id },
        { amount_cents: 1500, status: 'succeeded', reason: null, requested_by: admin.id },
      ]);
      const none = await refund(order.id).expect(400);
      expect(none.body.data.details).toBe(`Order ${order.order_number} has no paid payment to refund`);
    });

    it("the shopper's waiting manual payment is the one marked paid, recorded by the admin: no second payment", async () => {
      const order = await place();
      await api()
        .post(`/api/v1/orders/${order.id}/payments`)
        .auth(buyer.token, { type: 'bearer' })
        .expect(201);
      await setStatus(order.id, { payment_status: 'paid' }).expect(200);
      expect(await orderRow(order.id)).toEqual({ status: 'pending', payment_status: 'paid' });
      expect(await paymentRows(order.id)).toEqual([
        {
          provider: 'manual',
          status: 'paid',
          amount_cents: 2500,
          refunded_cents: 0,
          recorded_by: admin.id,
          recorded: true,
        },
      ]);
    });

    it("markPaidByHand (the OrderHistory facade, for other modules) records the payment and the staff in the caller's transaction; refused twice", async () => {
      const order = await place();
      const history = t.app.get(OrderHistory);
      const transactions = t.app.get(TransactionRunner);
      const marked = await transactions.run('mark paid', (tx) =>
        history.markPaidByHand(tx, order.id, admin.id),
      );
      expect(marked).toMatchObject({ id: order.id, status: 'paid', payment_status: 'paid' });
      expect(await orderRow(order.id)).toEqual({ status: 'paid', payment_status: 'paid' });
      expect(await paymentRows(order.id)).toEqual([
        {
          provider: 'manual',
          status: 'paid',
          amount_cents: 2500,
          refunded_cents: 0,
          recorded_by: admin.id,
          recorded: true,
        },
      ]);
      const [updated] = (await eventsOf(order.id)).filter(
        (event: { type: string }) => event.type === 'order.updated',
      );
      expect(updated.data.actor).toEqual({ type: 'staff', id: admin.id });
      await expect(
        transactions.run('mark paid again', (tx) => history.markPaidByHand(tx, order.id, admin.id)),
      ).rejects.toThrow(ValidationFailedException);
      expect(await paymentRows(order.id)).toHaveLength(1);
    });

    it('an order nothing paid is refused by its order number, and nothing is written', async () => {
      const order = await place();
      expect(order.order_number).toMatch(/^ORD-\d{8}-[0-9A-Z]{8}$/);
      const refused = await refund(order.id).expect(400);
      expect(refused.body.data.details).toBe(`Order ${order.order_number} has no paid payment to refund`);
      expect(await paymentRows(order.id)).toEqual([]);
      expect(await refundRows(order.id)).toEqual([]);
    });
  });

  describe('notes', () => {
    const addNote = (orderId: number, body: unknown, token = admin.token) =>
      api()
        .post(`/api/v1/admin/orders/${orderId}/notes`)
        .auth(token, { type: 'bearer' })
        .send(body as object);
    const noteCount = async (orderId: number) =>
      Number(
        (await t.dataSource.query('SELECT COUNT(*) AS n FROM order_notes WHERE order_id = ?', [orderId]))[0]
          .n,
      );

    it('an admin adds a trimmed note (201 with its author) and lists it', async () => {
      const order = await place();
      const added = await addNote(order.id, { text: '  Call before delivery \n' }).expect(201);
      expect(added.body.data).toEqual({
        id: expect.any(Number),
        order_id: order.id,
        text: 'Call before delivery',
        author: { id: admin.id, username: admin.username },
        created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      });
      const rows = await t.dataSource.query(
        'SELECT order_id, author_id, text FROM order_notes WHERE id = ?',
        [added.body.data.id],
      );
      expect(
        rows.map((r: Record<string, unknown>) => ({
          ...r,
          order_id: Number(r.order_id),
          author_id: Number(r.author_id),
        })),
      ).toEqual([{ order_id: order.id, author_id: admin.id, text: 'Call before delivery' }]);
      const listed = await api()
        .get(`/api/v1/admin/orders/${order.id}/notes`)
        .auth(admin.token, { type: 'bearer' })
        .expect(200);
      expect(listed.body.data).toEqual([added.body.data]);
    });

    it('refuses a missing, blank, too long or non-string text with 400 naming text; nothing is written', async () => {
      const order = await place();
      for (const [body, rule] of [
        [{}, 'isString'],
        [{ text: '   ' }, 'minLength'],
        [{ text: 'x'.repeat(2001) }, 'maxLength'],
        [{ text: 42 }, 'isString'],
      ] as const) {
        const refused = await addNote(order.id, body).expect(400);
        expect(refused.body.data.errors).toEqual(
          expect.arrayContaining([expect.objectContaining({ field: 'text', rule })]),
        );
      }
      await addNote(order.id, { text: `${'é'.repeat(2000)}  ` }).expect(201);
      expect(await noteCount(order.id)).toBe(1);
    });

    it('a customer is 403 (their own order too), a missing order 404', async () => {
      const order = await place();
      await addNote(order.id, { text: 'mine' }, buyer.token).expect(403);
      await api()
        .get(`/api/v1/admin/orders/${order.id}/notes`)
        .auth(buyer.token, { type: 'bearer' })
        .expect(403);
      await api()
        .get(`/api/v1/admin/orders/${order.id}/timeline`)
        .auth(buyer.token, { type: 'bearer' })
        .expect(403);
      const missing = await addNote(999999, { text: 'nobody' }).expect(404);
      expect(missing.body.data.details).toBe('Order 999999 not found');
      await api()
        .get('/api/v1/admin/orders/999999/timeline')
        .auth(admin.token, { type: 'bearer' })
        .expect(404);
      expect(await noteCount(order.id)).toBe(0);
    });
  });

  describe('timeline', () => {
    it('shows an order placed, e-mailed, paid by hand, partially refunded, noted, refunded and cancelled, oldest first, each with its actor', async () => {
      const order = await place();
      await eventually(async () => (await sentKinds(order.id)).includes('order-confirmation'));
      await setStatus(order.id, { status: 'paid', payment_status: 'paid' }).expect(200);
      await eventually(async () => (await sentKinds(order.id)).includes('payment-received'));
      await refund(order.id, { amount: 5, reason: 'late' }).expect(201);
      await api()
        .post(`/api/v1/admin/orders/${order.id}/notes`)
        .auth(admin.token, { type: 'bearer' })
        .send({ text: 'Refunded the rest by phone request' })
        .expect(201);
      await refund(order.id).expect(201);
      await setStatus(order.id, { status: 'cancelled' }).expect(200);

      const timeline = await api()
        .get(`/api/v1/admin/orders/${order.id}/timeline`)
        .auth(admin.token, { type: 'bearer' })
        .expect(200);
      const entries = timeline.body.data as Array<{
        at: string;
        type: string;
        actor: object;
        data: Record<string, unknown>;
      }>;
      const staff = { type: 'staff', id: admin.id };
      const system = { type: 'system', id: null };
      expect(entries.map(({ type, actor, data }) => ({ type, actor, data }))).toEqual([
        {
          type: 'placed',
          actor: { type: 'customer', id: buyer.id },
          data: {
            order_number: order.order_number,
            total: 25,
            amount_due: 25,
            currency_code: 'usd',
            payment_method: 'bank_transfer',
          },
        },
        {
          type: 'email_sent',
          actor: system,
          data: { kind: 'order-confirmation', to: `${buyer.username}@example.com` },
        },
        {
          type: 'payment',
          actor: staff,
          data: {
            payment_id: expect.any(Number),
            provider: 'manual',
            status: 'refunded',
            amount: 25,
            refunded: 25,
            currency: 'usd',
          },
        },
        {
          type: 'status_changed',
          actor: staff,
          data: {
            status: 'paid',
            payment_status: 'paid',
            fulfillment_status: 'not_fulfilled',
            previous_status: 'pending',
            previous_payment_status: 'pending',
          },
        },
        {
          type: 'email_sent',
          actor: system,
          data: { kind: 'payment-received', to: `${buyer.username}@example.com` },
        },
        {
          type: 'refund',
          actor: staff,
          data: {
            refund_id: expect.any(Number),
            payment_id: expect.any(Number),
            amount: 5,
            currency: 'usd',
            status: 'succeeded',
            reason: 'late',
          },
        },
        {
          type: 'status_changed',
          actor: staff,
          data: {
            status: 'paid',
            payment_status: 'partially_refunded',
            fulfillment_status: 'not_fulfilled',
            previous_status: 'paid',
            previous_payment_status: 'paid',
          },
        },
        {
          type: 'note',
          actor: staff,
          data: {
            note_id: expect.any(Number),
            text: 'Refunded the rest by phone request',
            author: { id: admin.id, username: admin.username },
          },
        },
        {
          type: 'refund',
          actor: staff,
          data: {
            refund_id: expect.any(Number),
            payment_id: expect.any(Number),
            amount: 20,
            currency: 'usd',
            status: 'succeeded',
            reason: null,
          },
        },
        {
          type: 'status_changed',
          actor: staff,
          data: {
            status: 'paid',
            payment_status: 'refunded',
            fulfillment_status: 'not_fulfilled',
            previous_status: 'paid',
            previous_payment_status: 'partially_refunded',
          },
        },
        {
          type: 'status_changed',
          actor: staff,
          data: {
            status: 'cancelled',
            payment_status: 'refunded',
            fulfillment_status: 'not_fulfilled',
            previous_status: 'paid',
            previous_payment_status: 'refunded',
          },
        },
      ]);
      const times = entries.map((entry) => entry.at);
      expect(times.every((at) => /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/.test(at))).toBe(true);
      expect([...times].sort()).toEqual(times);
      // The same order on every read.
      const again = await api()
        .get(`/api/v1/admin/orders/${order.id}/timeline`)
        .auth(admin.token, { type: 'bearer' })
        .expect(200);
      expect(again.body.data).toEqual(timeline.body.data);
      // The e-mails were really sent.
      const subjects = smtp.received.filter((mail) => mail.text.includes(order.order_number)).length;
      expect(subjects).toBeGreaterThanOrEqual(2);
    });

    it('shows an order that went through all of it: placed, paid, shipped in two fulfilments, delivered, returned, received and refunded, noted; in order, with actors', async () => {
      const order = await place();
      const asAdmin = (call: request.Test) => call.auth(admin.token, { type: 'bearer' });
      await setStatus(order.id, { status: 'paid', payment_status: 'paid' }).expect(200);
      const [item] = (await asAdmin(api().get(`/api/v1/orders/${order.id}`)).expect(200)).body.data.items;
      const fulfil = (quantity: number, tracking: string) =>
        asAdmin(api().post(`/api/v1/admin/orders/${order.id}/fulfilments`))
          .send({ items: [{ order_item_id: item.id, quantity }], carrier: 'DHL', tracking_number: tracking })
          .expect(201);
      const first = (await fulfil(1, 'T1')).body.data.id as number;
      const second = (await fulfil(1, 'T2')).body.data.id as number;
      for (const id of [first, second]) {
        await asAdmin(api().post(`/api/v1/admin/fulfilments/${id}/deliver`)).expect(200);
      }
      const requested = await api()
        .post(`/api/v1/orders/${order.id}/returns`)
        .auth(buyer.token, { type: 'bearer' })
        .send({ items: [{ order_item_id: item.id, quantity: 1, reason: 'too big' }] })
        .expect(201);
      await asAdmin(api().post(`/api/v1/admin/returns/${requested.body.data.id}/receive`))
        .send({ items: [{ order_item_id: item.id, quantity: 1, restock: true }] })
        .expect(200);
      await asAdmin(api().post(`/api/v1/admin/orders/${order.id}/notes`))
        .send({ text: 'Customer happy with the refund' })
        .expect(201);
      const kinds = [
        'order-confirmation',
        'payment-received',
        'shipment',
        'return-received',
        'refund-issued',
      ];
      await eventually(async () => {
        const sent = await sentKinds(order.id);
        return (
          kinds.every((kind) => sent.includes(kind)) &&
          sent.filter((k: string) => k === 'shipment').length === 2
        );
      });

      const entries = (await asAdmin(api().get(`/api/v1/admin/orders/${order.id}/timeline`)).expect(200)).body
        .data as Array<{
        at: string;
        type: string;
        actor: { type: string; id: number | null };
        data: Record<string, unknown>;
      }>;
      const times = entries.map((entry) => entry.at);
      expect([...times].sort()).toEqual(times);
      const staff = { type: 'staff', id: admin.id };
      // E-mails go out from the job queue at its pace: checked apart, each after what it is about.
      const steps = entries.filter((entry) => entry.type !== 'email_sent');
      expect(steps.map(({ type, actor }) => ({ type, actor }))).toEqual([
        { type: 'placed', actor: { type: 'customer', id: buyer.id } },
        { type: 'payment', actor: staff },
        { type: 'status_changed', actor: staff },
        { type: 'fulfilment_created', actor: staff },
        { type: 'status_changed', actor: staff },
        { type: 'fulfilment_created', actor: staff },
        { type: 'status_changed', actor: staff },
        { type: 'fulfilment_delivered', actor: staff },
        { type: 'fulfilment_delivered', actor: staff },
        { type: 'status_changed', actor: staff },
        { type: 'return_requested', actor: { type: 'customer', id: buyer.id } },
        { type: 'return_received', actor: staff },
        { type: 'refund', actor: staff },
        { type: 'status_changed', actor: staff },
        { type: 'note', actor: staff },
      ]);
      const moves = steps
        .filter((entry) => entry.type === 'status_changed')
        .map((entry) => `${entry.data.status}/${entry.data.payment_status}`);
      expect(moves).toEqual([
        'paid/paid',
        'paid/paid', // the first fulfilment: fulfillment_status partially_fulfilled
        'shipped/paid',
        'completed/paid',
        'completed/partially_refunded',
      ]);
      const refundEntry = steps.find((entry) => entry.type === 'refund')!;
      expect(refundEntry.data).toMatchObject({ amount: 12.5, status: 'succeeded' });
      const sent = entries.filter((entry) => entry.type === 'email_sent');
      expect(sent.map((entry) => entry.data.kind).sort()).toEqual([...kinds, 'shipment'].sort());
      const at = (type: string) => entries.find((entry) => entry.type === type)!.at;
      const sentAt = (kind: string) => sent.find((entry) => entry.data.kind === kind)!.at;
      expect(sentAt('shipment') >= at('fulfilment_created')).toBe(true);
      expect(sentAt('return-received') >= at('return_received')).toBe(true);
      expect(sentAt('refund-issued') >= at('refund')).toBe(true);
      const [row] = await t.dataSource.query(
        'SELECT status, payment_status, fulfillment_status FROM orders WHERE id = ?',
        [order.id],
      );
      expect(row).toEqual({
        status: 'completed',
        payment_status: 'partially_refunded',
        fulfillment_status: 'fulfilled',
      });
    });

    it('order events carry who made each change: customer at checkout and cancel, staff in PATCH, system for e-mails', async () => {
      const order = await place();
      await api().post(`/api/v1/orders/${order.id}/cancel`).auth(buyer.token, { type: 'bearer' }).expect(200);
      await eventually(async () => (await sentKinds(order.id)).includes('order-confirmation'));
      const events = await eventsOf(order.id);
      const actors = events.map((event: { type: string; data: { actor?: object } }) => [
        event.type,
        event.data.actor,
      ]);
      expect(actors).toEqual(
        expect.arrayContaining([
          ['order.created', { type: 'customer', id: buyer.id }],
          ['order.updated', { type: 'customer', id: buyer.id }],
          ['order.cancelled', { type: 'customer', id: buyer.id }],
          ['order.email_sent', { type: 'system', id: null }],
        ]),
      );
      expect(events).toHaveLength(4);
      const updated = events.find((event: { type: string }) => event.type === 'order.updated');
      expect(updated.data.previous).toEqual({ status: 'pending', payment_status: 'pending' });
    });
  });
});
