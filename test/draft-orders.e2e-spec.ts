import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createHash } from 'node:crypto';
import Stripe from 'stripe';
import request from 'supertest';
import { ADMIN_ENV, createAccount, loginAdmin, type Account } from './support/accounts.js';
import { startFakeStripe, stripeEnv, WEBHOOK_SECRET } from './support/fake-stripe.js';
import { createProduct } from './support/products.js';
import { BRITISH_ADDRESS, checkout, createPromotion, guestCart } from './support/promotions.js';
import { TestSmtpServer, type ReceivedMail } from './support/smtp-server.js';
import { startTestApp, type TestApp } from './support/test-app.js';

const LINKS = 'https://shop.example';
const PAYMENT_LINK = /https:\/\/shop\.example\/orders\/(\d+)\?token=([A-Za-z0-9_-]{43})/;
const VERIFY_TOKEN = /verify-email\?token=([A-Za-z0-9_-]{43})/;
const RESET_TOKEN = /reset-password\?token=([A-Za-z0-9_-]{43})/;
const signer = new Stripe('sk_test_signer');
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('draft orders and guest orders joining an account', () => {
  let smtp: TestSmtpServer;
  let stripe: Awaited<ReturnType<typeof startFakeStripe>>;
  let t: TestApp;
  let admin: Account;
  let customer: Account;
  let productId: number;

  const api = () => request(t.url);
  const as = (call: request.Test, account: Account) => call.auth(account.token, { type: 'bearer' });
  const query = <T = Record<string, unknown>>(sql: string, parameters: unknown[] = []) =>
    t.dataSource.query(sql, parameters) as Promise<T[]>;
  const emailOf = (account: Account) => `${account.username}@example.com`;
  const paymentMails = (address: string) =>
    smtp.to(address).filter((mail) => mail.subject.includes('ready for payment'));

  /** A draft for `body`'s customer with `lines`, an address and the admin's bearer token; its id. */
  async function draft(body: object, lines: Array<[number, number]>): Promise<string> {
    const created = await as(api().post('/api/v1/admin/carts'), admin).send(body).expect(201);
    const id = created.body.data.id as string;
    for (const [product, quantity] of lines) {
      await as(api().post(`/api/v1/carts/${id}/items`), admin)
        .send({ product_id: product, quantity })
        .expect(201);
    }
    await as(api().put(`/api/v1/carts/${id}`), admin)
      .send({ shipping_address: BRITISH_ADDRESS })
      .expect(200);
    return id;
  }

  /** A gift card of `balance` dollars, made by the admin. */
  const giftCard = async (balance: number) =>
    (
      await as(api().post('/api/v1/gift-cards'), admin)
        .send({ initial_balance: balance, currency_code: 'usd' })
        .expect(201)
    ).body.data as { id: number; code: string };

  const complete = (id: string, body: object = {}) =>
    as(api().post(`/api/v1/admin/carts/${id}/complete`), admin).send(body);

  function linkOf(mail: ReceivedMail): { orderId: number; token: string } {
    const match = PAYMENT_LINK.exec(mail.text);
    if (match === null) throw new Error(`no payment link in ${mail.text}`);
    return { orderId: Number(match[1]), token: match[2] };
  }

  beforeAll(async () => {
    smtp = await TestSmtpServer.create();
    stripe = await startFakeStripe();
    t = await startTestApp({
      ...ADMIN_ENV,
      ...stripeEnv(stripe.url),
      SMTP_URL: smtp.url,
      MAIL_LINK_BASE_URL: LINKS,
      MAIL_RETRY_BACKOFF_MS: '200',
      JOBS_POLL_INTERVAL_MS: '100',
      THROTTLE_MAIL_LIMIT: '100000',
    });
    admin = await loginAdmin(t);
    customer = await createAccount(t);
    productId = (await createProduct(t, admin.token, { price: 12.5, stock: 100 })).id;
  });

  afterAll(async () => {
    await t?.close();
    await stripe?.close();
    await smtp?.stop();
  });

  describe('creating a draft', () => {
    it('needs exactly one of user_id and email, an existing user and an admin; nothing is written otherwise', async () => {
      const before = await query('SELECT COUNT(*) AS n FROM carts');
      const refused = async (body: object, field: string, rule: string) => {
        const res = await as(api().post('/api/v1/admin/carts'), admin).send(body).expect(400);
        expect(res.body.data.errors).toEqual([expect.objectContaining({ field, rule })]);
      };
      await refused({}, 'user_id', 'required');
      await refused({ user_id: customer.id, email: 'a@example.com' }, 'user_id', 'exclusive');
      await refused({ user_id: 999_999 }, 'user_id', 'exists');
      await refused({ email: 'not-an-address' }, 'email', 'isEmail');
      await refused({ email: 'a@example.com', region_id: 999_999 }, 'region_id', 'exists');
      await as(api().post('/api/v1/admin/carts'), customer).send({ user_id: customer.id }).expect(403);
      await as(api().get('/api/v1/admin/carts'), customer).expect(403);
      await api().post('/api/v1/admin/carts').send({ user_id: customer.id }).expect(401);
      expect(await query('SELECT COUNT(*) AS n FROM carts')).toEqual(before);
    });

    it('a draft for a registered customer: staff change it through the cart routes; the customer neither sees nor changes nor checks it out', async () => {
      const created = await as(api().post('/api/v1/admin/carts'), admin)
        .send({ user_id: customer.id })
        .expect(201);
      const id = created.body.data.id as string;
      expect(created.body.data).toMatchObject({
        status: 'open',
        user_id: customer.id,
        draft_by_user_id: admin.id,
        email: null,
        items: [],
        region_id: expect.any(Number),
      });
      expect(created.body.data).not.toHaveProperty('cart_token');
      expect(
        await query('SELECT user_id, token_hash, draft_by_user_id FROM carts WHERE id = ?', [id]),
      ).toEqual([{ user_id: customer.id, token_hash: null, draft_by_user_id: admin.id }]);
      await as(api().post(`/api/v1/carts/${id}/items`), admin)
        .send({ product_id: productId, quantity: 2 })
        .expect(201);

      // The customer's own routes do not reach the draft.
      await as(api().get(`/api/v1/carts/${id}`), customer).expect(404);
      await as(api().get('/api/v1/me/cart'), customer).expect(404);
      await as(api().post(`/api/v1/carts/${id}/items`), customer)
        .send({ product_id: productId, quantity: 1 })
        .expect(404);
      await as(api().put(`/api/v1/carts/${id}`), customer)
        .send({ shipping_address: BRITISH_ADDRESS })
        .expect(404);
      await as(api().post(`/api/v1/carts/${id}/checkout`), customer)
        .send({ payment_method: 'credit_card' })
        .expect(404);
      await api().get(`/api/v1/carts/${id}`).expect(404);

      await as(api().put(`/api/v1/carts/${id}`), admin)
        .send({ shipping_address: BRITISH_ADDRESS })
        .expect(200);
      // Not even staff check a draft out as a shopper does: it is completed as a draft.
      const asShopper = await as(api().post(`/api/v1/carts/${id}/checkout`), admin)
        .send({ payment_method: 'credit_card' })
        .expect(400);
      expect(asShopper.body.data.errors).toEqual([expect.objectContaining({ field: '', rule: 'draft' })]);
      expect(
        Number((await query<{ n: number }>('SELECT COUNT(*) AS n FROM orders WHERE cart_id = ?', [id]))[0].n),
      ).toBe(0);

      const read = await as(api().get(`/api/v1/admin/carts/${id}`), admin).expect(200);
      expect(read.body.data).toMatchObject({
        id,
        user_id: customer.id,
        items: [expect.objectContaining({ product_id: productId, quantity: 2 })],
        subtotal: 25,
        shipping_address: expect.objectContaining({ country: 'GB' }),
      });
      const listed = await as(api().get('/api/v1/admin/carts?page_size=100'), admin).expect(200);
      expect(listed.body.data).toContainEqual(
        expect.objectContaining({ id, user_id: customer.id, draft_by_user_id: admin.id, line_count: 1 }),
      );
      // A shopper's own cart is neither listed nor readable as a draft.
      const own = (await as(api().post('/api/v1/carts'), customer).send({}).expect(201)).body.data.id;
      expect(listed.body.data.map((row: { id: string }) => row.id)).not.toContain(own);
      await as(api().get(`/api/v1/admin/carts/${own}`), admin).expect(404);
      await as(api().get(`/api/v1/carts/${own}`), admin).expect(404);
    });
  });

  describe('completing a draft', () => {
    it('places a pending order for the customer, e-mails a payment link that works without signing in, and the guest link pays it through Stripe', async () => {
      const id = await draft({ user_id: customer.id }, [[productId, 2]]);
      const res = await complete(id).expect(201);
      const order = res.body.data;
      expect(res.headers['idempotent-replayed']).toBeUndefined();
      expect(order).toMatchObject({
        status: 'pending',
        payment_status: 'pending',
        total_amount: 25,
        items: [expect.objectContaining({ product_id: productId, quantity: 2 })],
      });
      expect(order).not.toHaveProperty('order_token');
      const [row] = await query<Record<string, unknown>>(
        'SELECT user_id, placed_by_user_id, order_token_hash, cart_id FROM orders WHERE id = ?',
        [order.id],
      );
      expect(row).toMatchObject({ user_id: customer.id, placed_by_user_id: admin.id, cart_id: id });
      expect(await query('SELECT status FROM carts WHERE id = ?', [id])).toEqual([{ status: 'completed' }]);
      expect(await query('SELECT stock FROM products WHERE id = ?', [productId])).toEqual([{ stock: 98 }]);

      // The admin's view names who placed it; the customer sees it among their orders.
      const detail = await as(api().get(`/api/v1/orders/${order.id}`), admin).expect(200);
      expect(detail.body.data.placed_by).toEqual({
        id: admin.id,
        username: admin.username,
        email: 'admin@example.com',
      });
      expect(detail.body.data.user).toMatchObject({ id: customer.id });
      const mine = await as(api().get('/api/v1/orders'), customer).expect(200);
      expect(mine.body.data.map((o: { id: number }) => o.id)).toContain(order.id);
      const ownRead = await as(api().get(`/api/v1/orders/${order.id}`), customer).expect(200);
      expect(ownRead.body.data).not.toHaveProperty('placed_by');
      // The timeline shows staff placing it.
      const timeline = await as(api().get(`/api/v1/admin/orders/${order.id}/timeline`), admin).expect(200);
      expect(timeline.body.data[0]).toMatchObject({ type: 'placed', actor: { type: 'staff', id: admin.id } });

      const [mail] = await eventuallyMail(emailOf(customer));
      const link = linkOf(mail);
      expect(link.orderId).toBe(order.id);
      expect(row.order_token_hash).toBe(sha256(link.token));
      expect(mail.html).toContain(`href="${LINKS}/orders/${order.id}?token=${link.token}"`);

      const byLink = await api()
        .get(`/api/v1/orders/${order.id}`)
        .set('X-Order-Token', link.token)
        .expect(200);
      expect(byLink.body.data).toMatchObject({ id: order.id, total_amount: 25, status: 'pending' });
      await api().get(`/api/v1/orders/${order.id}`).set('X-Order-Token', 'wrong').expect(404);
      const payment = (
        await api().post(`/api/v1/orders/${order.id}/payments`).set('X-Order-Token', link.token).expect(201)
      ).body.data;
      expect(payment).toMatchObject({
        order_id: order.id,
        provider: 'stripe',
        status: 'pending',
        amount: 25,
      });
      const ref = (payment.client_secret as string).split('_secret')[0];
      const intent = stripe.intents.get(ref)!;
      expect(intent.amount).toBe(2500);
      const payload = JSON.stringify({
        id: `evt_draft_${order.id}`,
        object: 'event',
        type: 'payment_intent.succeeded',
        data: { object: { ...intent, status: 'succeeded', amount_received: 2500 } },
      });
      await api()
        .post('/api/v1/payments/stripe/webhook')
        .set('content-type', 'application/json')
        .set(
          'stripe-signature',
          signer.webhooks.generateTestHeaderString({ payload, secret: WEBHOOK_SECRET }),
        )
        .send(payload)
        .expect(200);
      expect(await query('SELECT status, payment_status FROM orders WHERE id = ?', [order.id])).toEqual([
        { status: 'paid', payment_status: 'paid' },
      ]);

      // Completing again answers the same order, places nothing and sends nothing more.
      const again = await complete(id).expect(201);
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(again.body.data.id).toBe(order.id);
      expect(again.body.data).not.toHaveProperty('order_token');
      expect(
        Number((await query<{ n: number }>('SELECT COUNT(*) AS n FROM orders WHERE cart_id = ?', [id]))[0].n),
      ).toBe(1);
      await sleep(500);
      expect(paymentMails(emailOf(customer))).toHaveLength(1);
      const listed = await as(api().get('/api/v1/admin/carts?page_size=100'), admin).expect(200);
      expect(listed.body.data.map((row: { id: string }) => row.id)).not.toContain(id);
    });

    it('a guest draft follows the checkout rules: stock refused with nothing placed, a discount code used once, mark_paid paid by hand without a link', async () => {
      const email = 'Phone.Guest@example.com';
      const scarce = await createProduct(t, admin.token, { price: 20, stock: 3 });
      const id = await draft({ email }, [[scarce.id, 2]]);
      // The line holds at most the stock, as for a shopper.
      const tooMany = await as(api().post(`/api/v1/carts/${id}/items`), admin)
        .send({ product_id: scarce.id, quantity: 2 })
        .expect(400);
      expect(tooMany.body.data.errors).toEqual([
        expect.objectContaining({ field: 'quantity', rule: 'stock' }),
      ]);

      const code = await createPromotion(t, admin.token, {
        code: 'PHONE5',
        description: '5 off',
        type: 'fixed',
        value: 5,
        currency_code: 'usd',
        usage_limit: 10,
      });
      const discounted = await as(api().post(`/api/v1/carts/${id}/discount-codes`), admin)
        .send({ code: 'phone5' })
        .expect(201);
      expect(discounted.body.data).toMatchObject({ subtotal: 40, discount_total: 5, total: 35 });
      const unknown = await as(api().post(`/api/v1/carts/${id}/discount-codes`), admin)
        .send({ code: 'NOPE' })
        .expect(400);
      expect(unknown.body.data.errors).toEqual([expect.objectContaining({ field: 'code', rule: 'unknown' })]);

      // The stock falls under the line before completion: refused as a checkout is, nothing placed.
      await as(api().put(`/api/v1/products/${scarce.id}`), admin)
        .send({ stock: 1 })
        .expect(200);
      const short = await complete(id, { mark_paid: true }).expect(400);
      const [line] = (await as(api().get(`/api/v1/admin/carts/${id}`), admin).expect(200)).body.data.items;
      expect(short.body.data.errors).toEqual([
        expect.objectContaining({ field: `items.${line.id}`, rule: 'stock' }),
      ]);
      expect(await query('SELECT status FROM carts WHERE id = ?', [id])).toEqual([{ status: 'open' }]);
      expect(
        Number((await query<{ n: number }>('SELECT COUNT(*) AS n FROM orders WHERE cart_id = ?', [id]))[0].n),
      ).toBe(0);
      expect(await query('SELECT used_count FROM promotions WHERE id = ?', [code.id])).toEqual([
        { used_count: 0 },
      ]);

      await as(api().put(`/api/v1/products/${scarce.id}`), admin)
        .send({ stock: 3 })
        .expect(200);
      const res = await complete(id, { mark_paid: true }).expect(201);
      expect(res.body.data).toMatchObject({
        status: 'paid',
        payment_status: 'paid',
        subtotal: 40,
        discount_total: 5,
        total_amount: 35,
        email,
      });
      const [row] = await query<Record<string, unknown>>(
        'SELECT user_id, email_key, placed_by_user_id, order_token_hash FROM orders WHERE id = ?',
        [res.body.data.id],
      );
      expect(row).toMatchObject({
        user_id: null,
        email_key: email.toLowerCase(),
        placed_by_user_id: admin.id,
      });
      expect(row.order_token_hash).toEqual(expect.stringMatching(/^[0-9a-f]{64}$/));
      expect(await query('SELECT used_count FROM promotions WHERE id = ?', [code.id])).toEqual([
        { used_count: 1 },
      ]);
      expect(await query('SELECT stock FROM products WHERE id = ?', [scarce.id])).toEqual([{ stock: 1 }]);
      // Paid by hand: the confirmation and the payment receipt, never a payment link.
      const mails = await smtp.waitFor(email, 2);
      const number = res.body.data.order_number as string;
      expect(mails.map((mail) => mail.subject).sort()).toEqual([
        `Payment received for order ${number}`,
        `Your order ${number}`,
      ]);
      await sleep(500);
      expect(paymentMails(email)).toEqual([]);
    });

    it('a gift card applied by staff pays its part at placing, taken once; mark_paid then marks the rest paid by hand', async () => {
      const card = await giftCard(10);
      const id = await draft({ email: 'card-guest@example.com' }, [[productId, 2]]);
      const applied = await as(api().post(`/api/v1/carts/${id}/gift-cards`), admin)
        .send({ code: card.code })
        .expect(201);
      expect(applied.body.data).toMatchObject({ total: 25, gift_card_total: 10, amount_due: 15 });
      const res = await complete(id, { mark_paid: true }).expect(201);
      expect(res.body.data).toMatchObject({
        status: 'paid',
        payment_status: 'paid',
        total_amount: 25,
        gift_card_total: 10,
        amount_due: 15,
      });
      const [{ balance_minor }] = await query<{ balance_minor: number | string }>(
        'SELECT balance_minor FROM gift_cards WHERE id = ?',
        [card.id],
      );
      expect(Number(balance_minor)).toBe(0);
      const ledger = await query<{ order_id: number; kind: string; amount_minor: number | string }>(
        'SELECT order_id, kind, amount_minor FROM gift_card_transactions WHERE gift_card_id = ?',
        [card.id],
      );
      expect(ledger.map((row) => ({ ...row, amount_minor: Number(row.amount_minor) }))).toEqual([
        { order_id: res.body.data.id, kind: 'debit', amount_minor: 1000 },
      ]);
      // Completing again takes nothing more from the card.
      await complete(id, { mark_paid: true }).expect(201);
      expect(
        (await query('SELECT id FROM gift_card_transactions WHERE gift_card_id = ?', [card.id])).length,
      ).toBe(1);
    });

    it('an order gift cards pay fully is paid at placing: mark_paid has nothing left to do, and no link is sent', async () => {
      const card = await giftCard(100);
      const email = 'fully-carded@example.com';
      for (const markPaid of [true, false]) {
        const id = await draft({ email }, [[productId, 1]]);
        await as(api().post(`/api/v1/carts/${id}/gift-cards`), admin)
          .send({ code: card.code })
          .expect(201);
        const res = await complete(id, { mark_paid: markPaid }).expect(201);
        expect(res.body.data).toMatchObject({ status: 'paid', payment_status: 'paid', amount_due: 0 });
      }
      await smtp.waitFor(email, 4);
      await sleep(500);
      expect(paymentMails(email)).toEqual([]);
    });

    it('completing is staff’s only: a customer is 403, an unknown or a shopper’s cart 404', async () => {
      const id = await draft({ email: 'x@example.com' }, [[productId, 1]]);
      await as(api().post(`/api/v1/admin/carts/${id}/complete`), customer)
        .send({})
        .expect(403);
      await complete('3f1c8a2e-6d1b-4f7a-9a53-0d2e1b7c4a10').expect(404);
      const shopper = await guestCart(t, [[productId, 1]]);
      await complete(shopper.id).expect(404);
      const bad = await complete(id, { mark_paid: 'yes' }).expect(400);
      expect(bad.body.data.errors).toEqual([
        expect.objectContaining({ field: 'mark_paid', rule: 'isBoolean' }),
      ]);
      expect(await query('SELECT status FROM carts WHERE id = ?', [id])).toEqual([{ status: 'open' }]);
    });

    it('an open draft is deleted with its lines by staff only; a placed one is refused and its order stays', async () => {
      const id = await draft({ user_id: customer.id }, [[productId, 1]]);
      const remove = (cart: string, account = admin) =>
        as(api().delete(`/api/v1/admin/carts/${cart}`), account);
      await remove(id, customer).expect(403);
      const shopper = await guestCart(t, [[productId, 1]]);
      await remove(shopper.id).expect(404);
      expect(await query('SELECT id FROM carts WHERE id = ?', [shopper.id])).toHaveLength(1);
      const res = await remove(id).expect(200);
      expect(res.body).toEqual({ code: 200, message: 'OK', data: null });
      expect(await query('SELECT id FROM carts WHERE id = ?', [id])).toEqual([]);
      expect(await query('SELECT id FROM cart_items WHERE cart_id = ?', [id])).toEqual([]);
      await as(api().get(`/api/v1/admin/carts/${id}`), admin).expect(404);
      await remove(id).expect(404);

      const placed = await draft({ email: 'kept@example.com' }, [[productId, 1]]);
      const order = (await complete(placed, { mark_paid: true }).expect(201)).body.data;
      const refused = await remove(placed).expect(400);
      expect(refused.body.data.errors).toEqual([expect.objectContaining({ field: 'id', rule: 'open' })]);
      expect(await query('SELECT status FROM carts WHERE id = ?', [placed])).toEqual([
        { status: 'completed' },
      ]);
      expect(await query('SELECT status FROM orders WHERE id = ?', [order.id])).toEqual([{ status: 'paid' }]);
    });
  });

  describe('guest orders joining an account', () => {
    const guestOrder = async (email: string) => {
      const cart = await guestCart(t, [[productId, 1]], { email });
      const order = (await checkout(t, cart).expect(201)).body.data;
      return order as { id: number; order_token: string };
    };
    const ownersOf = async (ids: number[]) =>
      (
        await query<{ id: number; user_id: number | null }>(
          `SELECT id, user_id FROM orders WHERE id IN (${ids.join(', ')}) ORDER BY id`,
        )
      ).map((row) => row.user_id);
    const listedIds = async (account: Account) =>
      ((await as(api().get('/api/v1/orders'), account).expect(200)).body.data as Array<{ id: number }>).map(
        (order) => order.id,
      );
    /** The token of the latest e-mail to `address` whose text matches `pattern` (waiting for it). */
    async function tokenFrom(address: string, pattern: RegExp, after = 0): Promise<string> {
      const deadline = Date.now() + 15_000;
      for (;;) {
        const match = smtp
          .to(address)
          .slice(after)
          .map((mail) => pattern.exec(mail.text))
          .find((found) => found !== null);
        if (match != null) return match[1];
        if (Date.now() > deadline) throw new Error(`no ${pattern} e-mail to ${address}`);
        await sleep(100);
      }
    }

    it('become the account’s when it verifies the address through the link, not by registering; another address’s stay guest orders', async () => {
      const username = `joiner${Date.now() % 100000}`;
      const address = `${username}@example.com`;
      const first = await guestOrder(address.toUpperCase());
      const second = await guestOrder(address);
      const other = await guestOrder(`other-${address}`);

      const account = await createAccount(t, { username });
      expect(await listedIds(account)).toEqual([]);
      expect(await ownersOf([first.id, second.id, other.id])).toEqual([null, null, null]);

      const token = await tokenFrom(address, VERIFY_TOKEN);
      await api().post('/api/v1/auth/verify-email').send({ token }).expect(200);
      expect(await ownersOf([first.id, second.id, other.id])).toEqual([account.id, account.id, null]);
      expect(await listedIds(account)).toEqual([second.id, first.id]);
      await as(api().get(`/api/v1/orders/${first.id}`), account).expect(200);
      // The guest's token keeps reading the order.
      const byToken = await api()
        .get(`/api/v1/orders/${first.id}`)
        .set('X-Order-Token', first.order_token)
        .expect(200);
      expect(byToken.body.data.id).toBe(first.id);
    });

    it('do not join an account counted as verified without the link (a password reset verifies it)', async () => {
      const username = `resetter${Date.now() % 100000}`;
      const address = `${username}@example.com`;
      const account = await createAccount(t, { username });
      await tokenFrom(address, VERIFY_TOKEN);
      const order = await guestOrder(address);
      await api().post('/api/v1/auth/password-reset').send({ email: address }).expect(200);
      const reset = await tokenFrom(address, RESET_TOKEN);
      await api()
        .post('/api/v1/auth/password-reset/confirm')
        .send({ token: reset, password: 'password-456' })
        .expect(200);
      expect(
        Boolean(
          (await query<{ v: number }>('SELECT email_verified AS v FROM users WHERE id = ?', [account.id]))[0]
            .v,
        ),
      ).toBe(true);
      expect(await ownersOf([order.id])).toEqual([null]);
    });
  });

  async function eventuallyMail(address: string): Promise<ReceivedMail[]> {
    const deadline = Date.now() + 15_000;
    while (paymentMails(address).length === 0) {
      if (Date.now() > deadline) throw new Error(`no payment link to ${address}`);
      await sleep(100);
    }
    return paymentMails(address);
  }
});
