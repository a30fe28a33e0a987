import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { ADMIN_ENV, createAccount, loginAdmin, type Account } from './support/accounts.js';
import { expectRefusals } from './support/field-errors.js';
import { concurrentClient } from './support/http.js';
import { placeOrder } from './support/orders.js';
import { createProduct } from './support/products.js';
import { TestSmtpServer } from './support/smtp-server.js';
import { startTestApp, type TestApp } from './support/test-app.js';
import { registerWebhook, startWebhookReceiver, type WebhookReceiver } from './support/webhook-receiver.js';

describe('fulfilments', () => {
  let t: TestApp;
  let smtp: TestSmtpServer;
  let receiver: WebhookReceiver;
  let admin: Account;
  let buyer: Account;
  let other: Account;
  let cups: number;
  let saucers: number;

  beforeAll(async () => {
    smtp = await TestSmtpServer.create();
    receiver = await startWebhookReceiver();
    t = await startTestApp({
      ...ADMIN_ENV,
      SMTP_URL: smtp.url,
      JOBS_POLL_INTERVAL_MS: '100',
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    });
    admin = await loginAdmin(t);
    buyer = await createAccount(t);
    other = await createAccount(t);
    cups = (await createProduct(t, admin.token, { name: 'Espresso cup', stock: 1000, price: 10 })).id;
    saucers = (await createProduct(t, admin.token, { name: 'Saucer', stock: 1000, price: 2.5 })).id;
    await registerWebhook(t, admin.token, `${receiver.url}/orders`, ['order.fulfilled', 'order.delivered']);
  });

  afterAll(async () => {
    await t?.close();
    await smtp?.stop();
    await receiver?.close();
  });

  const api = () => request(t.url);
  const asAdmin = (call: request.Test) => call.auth(admin.token, { type: 'bearer' });
  /** A paid order of `lines` ([product, quantity]); gives its id and its items' ids in the lines' order. */
  const paidOrder = async (lines: Array<[number, number]>, paid = true) => {
    const id = (await placeOrder(t, buyer.token, lines).expect(201)).body.data.id as number;
    if (paid) {
      await asAdmin(api().patch(`/api/v1/orders/${id}/status`))
        .send({ status: 'paid', payment_status: 'paid' })
        .expect(200);
    }
    const items = (await asAdmin(api().get(`/api/v1/orders/${id}`)).expect(200)).body.data.items as Array<{
      id: number;
      product_id: number;
    }>;
    return { id, items: lines.map(([product]) => items.find((item) => item.product_id === product)!.id) };
  };
  const fulfil = (orderId: number, body: object) =>
    asAdmin(api().post(`/api/v1/admin/orders/${orderId}/fulfilments`)).send(body);
  const orderRow = async (id: number) =>
    (
      await t.dataSource.query('SELECT status, payment_status, fulfillment_status FROM orders WHERE id = ?', [
        id,
      ])
    )[0];
  const fulfilledUnits = async (orderId: number) =>
    (
      await t.dataSource.query('SELECT fulfilled_quantity FROM order_items WHERE order_id = ? ORDER BY id', [
        orderId,
      ])
    ).map((row: { fulfilled_quantity: number | string }) => Number(row.fulfilled_quantity));
  const webhooksOf = (type: string, orderId: number) =>
    receiver
      .to('/orders')
      .map((hook) => JSON.parse(hook.body))
      .filter((body) => body.type === type && body.data.order.id === orderId);

  it('ships units of a paid order only: an unpaid one is 400 naming payment_status, a customer 403', async () => {
    const { id, items } = await paidOrder([[cups, 1]], false);
    const res = await fulfil(id, { items: [{ order_item_id: items[0], quantity: 1 }] }).expect(400);
    expect(res.body.data.errors).toEqual([
      {
        field: 'payment_status',
        rule: 'paid',
        message: `Only a paid order is fulfilled; order ${id} has payment_status pending`,
      },
    ]);
    await api()
      .post(`/api/v1/admin/orders/${id}/fulfilments`)
      .auth(buyer.token, { type: 'bearer' })
      .send({ items: [{ order_item_id: items[0], quantity: 1 }] })
      .expect(403);
    await fulfil(999999, { items: [{ order_item_id: items[0], quantity: 1 }] }).expect(404);
    expect(await t.dataSource.query('SELECT id FROM fulfilments WHERE order_id = ?', [id])).toEqual([]);
    expect(await fulfilledUnits(id)).toEqual([0]);
  });

  it('refuses bad items with 400 naming the field and rule, and writes nothing', async () => {
    const { id, items } = await paidOrder([
      [cups, 2],
      [saucers, 1],
    ]);
    const foreign = (await paidOrder([[cups, 1]])).items[0];
    await expectRefusals(
      (body) => fulfil(id, body),
      [
        [{ items: [] }, 'items', 'arrayMinSize'],
        [{ items: [{ order_item_id: items[0], quantity: 0 }] }, 'items.0.quantity', 'min'],
        [{ items: [{ order_item_id: foreign, quantity: 1 }] }, 'items.0.order_item_id', 'exists'],
        [
          {
            items: [
              { order_item_id: items[0], quantity: 1 },
              { order_item_id: items[0], quantity: 1 },
            ],
          },
          'items.1.order_item_id',
          'unique',
        ],
        [{ items: [{ order_item_id: items[1], quantity: 2 }] }, 'items.0.quantity', 'max'],
        [
          { items: [{ order_item_id: items[0], quantity: 1 }], tracking_url: 'ftp://files.example/1' },
          'tracking_url',
          'isUrl',
        ],
        [
          { items: [{ order_item_id: items[0], quantity: 1 }], tracking_url: 'javascript:alert(1)' },
          'tracking_url',
          'isUrl',
        ],
      ],
    );
    expect(await t.dataSource.query('SELECT id FROM fulfilments WHERE order_id = ?', [id])).toEqual([]);
    expect(await fulfilledUnits(id)).toEqual([0, 0]);
    expect(await orderRow(id)).toEqual({
      status: 'paid',
      payment_status: 'paid',
      fulfillment_status: 'not_fulfilled',
    });
  });

  it('a partial fulfilment leaves the order paid and partially_fulfilled; the last units make it shipped; each sends its e-mail and webhook', async () => {
    const { id, items } = await paidOrder([
      [cups, 3],
      [saucers, 1],
    ]);
    const first = await fulfil(id, {
      items: [{ order_item_id: items[0], quantity: 2 }],
      carrier: 'DHL',
      tracking_number: 'JD0001',
      tracking_url: 'https://track.example/JD0001',
    }).expect(201);
    expect(first.body.data).toEqual({
      id: expect.any(Number),
      order_id: id,
      items: [{ order_item_id: items[0], quantity: 2 }],
      carrier: 'DHL',
      tracking_number: 'JD0001',
      tracking_url: 'https://track.example/JD0001',
      notify_customer: true,
      shipped_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      delivered_at: null,
      cancelled_at: null,
    });
    expect(await orderRow(id)).toEqual({
      status: 'paid',
      payment_status: 'paid',
      fulfillment_status: 'partially_fulfilled',
    });
    expect(await fulfilledUnits(id)).toEqual([2, 0]);
    const detail = (await api().get(`/api/v1/orders/${id}`).auth(buyer.token, { type: 'bearer' }).expect(200))
      .body.data;
    expect(detail).toMatchObject({ status: 'paid', fulfillment_status: 'partially_fulfilled' });
    expect(detail.fulfilments).toEqual([first.body.data]);
    const listed = (await api().get('/api/v1/orders').auth(buyer.token, { type: 'bearer' }).expect(200)).body
      .data;
    expect(listed.find((order: { id: number }) => order.id === id).fulfillment_status).toBe(
      'partially_fulfilled',
    );
    const adminListed = (await asAdmin(api().get(`/api/v1/admin/orders?user_id=${buyer.id}`)).expect(200))
      .body.data;
    expect(adminListed.find((order: { id: number }) => order.id === id).fulfillment_status).toBe(
      'partially_fulfilled',
    );
    await api().get(`/api/v1/orders/${id}`).auth(other.token, { type: 'bearer' }).expect(404);

    const second = await fulfil(id, {
      items: [
        { order_item_id: items[0], quantity: 1 },
        { order_item_id: items[1], quantity: 1 },
      ],
      carrier: 'UPS',
      tracking_url: 'https://ups.example/t?n=Z9&lang=en',
    }).expect(201);
    expect(await orderRow(id)).toEqual({
      status: 'shipped',
      payment_status: 'paid',
      fulfillment_status: 'fulfilled',
    });
    expect(await fulfilledUnits(id)).toEqual([3, 1]);
    expect(
      await t.dataSource.query(
        'SELECT fi.order_item_id, fi.quantity FROM fulfilment_items fi JOIN fulfilments f ON f.id = fi.fulfilment_id WHERE f.order_id = ? ORDER BY fi.id',
        [id],
      ),
    ).toEqual([
      { order_item_id: items[0], quantity: 2 },
      { order_item_id: items[0], quantity: 1 },
      { order_item_id: items[1], quantity: 1 },
    ]);

    const address = `${buyer.username}@example.com`;
    await smtp.waitFor(address, 1);
    const shipped = async () => {
      const mails = (await smtp.waitFor(address, 1)).filter((mail) => mail.subject.includes('has shipped'));
      return mails.filter((mail) => mail.text.includes(`/JD0001`) || mail.text.includes('ups.example'));
    };
    const deadline = Date.now() + 15_000;
    while ((await shipped()).length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    const mails = await shipped();
    expect(mails).toHaveLength(2);
    const dhl = mails.find((mail) => mail.text.includes('DHL'))!;
    expect(dhl.text).toContain('- Espresso cup: 2');
    expect(dhl.text).toContain('Tracking number: JD0001');
    expect(dhl.html).toContain('<a href="https://track.example/JD0001">');
    const ups = mails.find((mail) => mail.text.includes('UPS'))!;
    expect(ups.html).toContain('href="https://ups.example/t?n=Z9&amp;lang=en"');

    await receiver.waitFor('/orders', 1);
    const deadline2 = Date.now() + 15_000;
    while (webhooksOf('order.fulfilled', id).length < 2 && Date.now() < deadline2) {
      await new Promise((r) => setTimeout(r, 50));
    }
    const hooks = webhooksOf('order.fulfilled', id);
    expect(hooks.map((hook) => hook.data.fulfilment.id).sort()).toEqual(
      [first.body.data.id, second.body.data.id].sort(),
    );
    const last = hooks.find((hook) => hook.data.fulfilment.id === second.body.data.id);
    expect(last.data.order).toMatchObject({ id, status: 'shipped', fulfillment_status: 'fulfilled' });
    expect(last.data.fulfilment).toEqual(second.body.data);
  });

  it('notify_customer false sends no shipment e-mail', async () => {
    const { id, items } = await paidOrder([[cups, 2]]);
    await fulfil(id, {
      items: [{ order_item_id: items[0], quantity: 1 }],
      notify_customer: false,
      carrier: 'Quiet',
    }).expect(201);
    await fulfil(id, { items: [{ order_item_id: items[0], quantity: 1 }], carrier: 'Loud' }).expect(201);
    const address = `${buyer.username}@example.com`;
    const deadline = Date.now() + 15_000;
    const loud = () => smtp.to(address).filter((mail) => mail.text.includes('with Loud'));
    while (loud().length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(loud()).toHaveLength(1);
    expect(smtp.to(address).filter((mail) => mail.text.includes('with Quiet'))).toEqual([]);
  });

  it('delivering every live fulfilment completes a fully fulfilled order; a second deliver changes nothing', async () => {
    const { id, items } = await paidOrder([[cups, 2]]);
    const a = (await fulfil(id, { items: [{ order_item_id: items[0], quantity: 1 }] }).expect(201)).body.data;
    const b = (await fulfil(id, { items: [{ order_item_id: items[0], quantity: 1 }] }).expect(201)).body.data;
    const delivered = await asAdmin(api().post(`/api/v1/admin/fulfilments/${a.id}/deliver`)).expect(200);
    expect(delivered.body.data).toEqual({ ...a, delivered_at: expect.stringMatching(/^\d{4}-/) });
    expect(await orderRow(id)).toEqual({
      status: 'shipped',
      payment_status: 'paid',
      fulfillment_status: 'fulfilled',
    });
    await asAdmin(api().post(`/api/v1/admin/fulfilments/${b.id}/deliver`)).expect(200);
    expect(await orderRow(id)).toEqual({
      status: 'completed',
      payment_status: 'paid',
      fulfillment_status: 'fulfilled',
    });
    const again = await asAdmin(api().post(`/api/v1/admin/fulfilments/${a.id}/deliver`)).expect(200);
    expect(again.body.data).toEqual(delivered.body.data);
    const [row] = await t.dataSource.query(
      'SELECT delivered_by, delivered_at FROM fulfilments WHERE id = ?',
      [a.id],
    );
    expect(Number(row.delivered_by)).toBe(admin.id);
    expect(row.delivered_at).not.toBeNull();
    const deadline = Date.now() + 15_000;
    while (webhooksOf('order.delivered', id).length < 2 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
    }
    await new Promise((r) => setTimeout(r, 300));
    const hooks = webhooksOf('order.delivered', id);
    expect(hooks.map((hook) => hook.data.fulfilment.id).sort()).toEqual([a.id, b.id].sort());
    expect(hooks.find((hook) => hook.data.fulfilment.id === b.id).data.order.status).toBe('completed');
    const cancel = await asAdmin(api().post(`/api/v1/admin/fulfilments/${a.id}/cancel`)).expect(400);
    expect(cancel.body.data.errors).toEqual([
      expect.objectContaining({ field: 'fulfilment', rule: 'notDelivered' }),
    ]);
    await asAdmin(api().post('/api/v1/admin/fulfilments/999999/deliver')).expect(404);
  });

  it('cancelling a fulfilment gives its units back: shipped goes back to paid; a cancelled one is not delivered', async () => {
    const { id, items } = await paidOrder([
      [cups, 1],
      [saucers, 2],
    ]);
    await fulfil(id, { items: [{ order_item_id: items[0], quantity: 1 }] }).expect(201);
    const last = (await fulfil(id, { items: [{ order_item_id: items[1], quantity: 2 }] }).expect(201)).body
      .data;
    expect(await orderRow(id)).toEqual({
      status: 'shipped',
      payment_status: 'paid',
      fulfillment_status: 'fulfilled',
    });
    const cancelled = await asAdmin(api().post(`/api/v1/admin/fulfilments/${last.id}/cancel`)).expect(200);
    expect(cancelled.body.data).toEqual({ ...last, cancelled_at: expect.stringMatching(/^\d{4}-/) });
    expect(await orderRow(id)).toEqual({
      status: 'paid',
      payment_status: 'paid',
      fulfillment_status: 'partially_fulfilled',
    });
    expect(await fulfilledUnits(id)).toEqual([1, 0]);
    const [row] = await t.dataSource.query('SELECT cancelled_by FROM fulfilments WHERE id = ?', [last.id]);
    expect(Number(row.cancelled_by)).toBe(admin.id);
    await asAdmin(api().post(`/api/v1/admin/fulfilments/${last.id}/cancel`)).expect(400);
    const deliver = await asAdmin(api().post(`/api/v1/admin/fulfilments/${last.id}/deliver`)).expect(400);
    expect(deliver.body.data.errors[0]).toMatchObject({ field: 'fulfilment', rule: 'notCancelled' });
    // The units can be shipped again.
    await fulfil(id, { items: [{ order_item_id: items[1], quantity: 2 }] }).expect(201);
    expect(await orderRow(id)).toEqual({
      status: 'shipped',
      payment_status: 'paid',
      fulfillment_status: 'fulfilled',
    });
    const detail = (await asAdmin(api().get(`/api/v1/orders/${id}`)).expect(200)).body.data;
    expect(detail.fulfilments.map((f: { cancelled_at: string | null }) => f.cancelled_at !== null)).toEqual([
      false,
      true,
      false,
    ]);
  });

  it('10 concurrent fulfilments of the last 3 units: exactly 3 succeed, the rest are 400, and no unit ships twice', async () => {
    const { id, items } = await paidOrder([[cups, 10]]);
    await fulfil(id, { items: [{ order_item_id: items[0], quantity: 7 }] }).expect(201);
    const agent = concurrentClient();
    try {
      const responses = await Promise.all(
        Array.from({ length: 10 }, () =>
          asAdmin(api().post(`/api/v1/admin/orders/${id}/fulfilments`).agent(agent)).send({
            items: [{ order_item_id: items[0], quantity: 1 }],
          }),
        ),
      );
      expect(responses.map((res) => res.status).sort()).toEqual([
        201, 201, 201, 400, 400, 400, 400, 400, 400, 400,
      ]);
      for (const refused of responses.filter((res) => res.status === 400)) {
        expect(refused.body.data.errors).toEqual([
          expect.objectContaining({ field: 'items.0.quantity', rule: 'max' }),
        ]);
      }
    } finally {
      agent.destroy();
    }
    expect(await fulfilledUnits(id)).toEqual([10]);
    const [{ units }] = await t.dataSource.query(
      'SELECT SUM(fi.quantity) AS units FROM fulfilment_items fi JOIN fulfilments f ON f.id = fi.fulfilment_id WHERE f.order_id = ?',
      [id],
    );
    expect(Number(units)).toBe(10);
    expect(await orderRow(id)).toEqual({
      status: 'shipped',
      payment_status: 'paid',
      fulfillment_status: 'fulfilled',
    });
  });

  it('the database refuses more fulfilled units than the item has (CHECK)', async () => {
    const { id, items } = await paidOrder([[cups, 1]]);
    await expect(
      t.dataSource.query('UPDATE order_items SET fulfilled_quantity = 2 WHERE id = ?', [items[0]]),
    ).rejects.toThrow(/CHK_order_items_fulfilled|CHECK constraint/);
    expect(await fulfilledUnits(id)).toEqual([0]);
  });

  it('the old PATCH /orders/{id}/status still moves paid → shipped → completed', async () => {
    const { id } = await paidOrder([[cups, 1]]);
    await asAdmin(api().patch(`/api/v1/orders/${id}/status`))
      .send({ status: 'shipped' })
      .expect(200);
    await asAdmin(api().patch(`/api/v1/orders/${id}/status`))
      .send({ status: 'completed' })
      .expect(200);
    expect(await orderRow(id)).toEqual({
      status: 'completed',
      payment_status: 'paid',
      fulfillment_status: 'not_fulfilled',
    });
  });
});
