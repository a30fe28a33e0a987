import { afterAll, beforeAll, expect, it, jest } from '@jest/globals';
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { loadConfig } from '../src/config/app-config.js';
import { buildDataSourceOptions } from '../src/database/data-source-options.js';
import { ADMIN_ENV, loginAdmin } from './support/accounts.js';
import { buildService, freePort, startAppProcess, type AppProcess } from './support/app-process.js';
import {
  BROWSER_WAIT_MS,
  describeInBrowser,
  LAPTOP,
  launchChromium,
  newBrowserContext,
  RESULTS_DIR,
  screenshot,
  watchPage,
  type PageLog,
} from './support/browser.js';
import { eventually } from './support/eventually.js';
import { TestSmtpServer } from './support/smtp-server.js';
import { createTestDatabase } from './support/test-app.js';

const ROOT = join(__dirname, '..');
const STOREFRONT = join(ROOT, 'packages', 'storefront');
const PHONE = { width: 390, height: 844 };
/** A 16×16 blue PNG: a real image for the product's gallery. */
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAABAAAAAQCAIAAACQkWg2AAAAFklEQVR4nGOQizpBEmIY1TCqYfhqAAB1t0AQ8w5IqQAAAABJRU5ErkJggg==',
  'base64',
);

/** The newest modification time of the files under `dir` (a source change makes the build stale). */
function newest(dir: string): number {
  let latest = 0;
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) latest = Math.max(latest, statSync(join(entry.parentPath, entry.name)).mtimeMs);
  }
  return latest;
}

/** Builds the storefront (`npm run build -w @commerce/storefront`) when there is no build or its sources are newer. */
function ensureStorefrontBuild(): void {
  const buildId = join(STOREFRONT, '.next', 'BUILD_ID');
  const sources = Math.max(
    newest(join(STOREFRONT, 'src')),
    newest(join(ROOT, 'packages', 'sdk', 'src')),
    statSync(join(STOREFRONT, 'next.config.ts')).mtimeMs,
    statSync(join(STOREFRONT, 'package.json')).mtimeMs,
  );
  if (existsSync(buildId) && statSync(buildId).mtimeMs > sources) return;
  execFileSync('npm', ['run', 'build', '-w', '@commerce/storefront'], {
    cwd: ROOT,
    stdio: 'inherit',
    // Jest sets NODE_ENV=test, which Next refuses for a production build.
    env: { ...process.env, NODE_ENV: 'production', NEXT_TELEMETRY_DISABLED: '1' },
  });
}

/** `next start` on `port` against the service; resolves once the home page answers. */
async function startStorefront(
  port: number,
  apiUrl: string,
): Promise<{ url: string; stop(): Promise<void> }> {
  let output = '';
  const child: ChildProcess = spawn(
    process.execPath,
    [join(ROOT, 'node_modules/next/dist/bin/next'), 'start', '--port', String(port)],
    {
      cwd: STOREFRONT,
      env: {
        PATH: process.env.PATH,
        NODE_ENV: 'production',
        NEXT_TELEMETRY_DISABLED: '1',
        COMMERCE_API_URL: apiUrl,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
      // Its own process group: `next start` runs the server in a child process, stopped with it.
      detached: true,
    },
  );
  child.stdout?.on('data', (chunk) => (output += chunk));
  child.stderr?.on('data', (chunk) => (output += chunk));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `http://localhost:${port}`;
  const deadline = Date.now() + 2 * BROWSER_WAIT_MS;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the storefront exited with ${child.exitCode}:\n${output}`);
    try {
      if ((await fetch(url)).ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      process.kill(-child.pid!, 'SIGKILL');
      throw new Error(`the storefront did not answer:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return {
    url,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, 'SIGTERM');
      await exited;
    },
  };
}

/**
 * The storefront (its production build, `next start`) in Chromium against the built service as a process
 * (SQLite, or the database of TEST_DATABASE_URL), on a catalogue seeded through the API: a guest's order from a
 * search with a typo to the confirmation, a customer's own order and account pages, no console error, no secret
 * readable by the page's scripts, every page photographed on a phone and a laptop, and the home page's first load
 * measured. The steps build on each other, in order.
 */
describeInBrowser()('storefront in the browser', () => {
  jest.setTimeout(5 * BROWSER_WAIT_MS);
  let service: AppProcess;
  let storefront: { url: string; stop(): Promise<void> };
  let uploadDir: string;
  let dropDatabase: () => Promise<void>;
  let db: DataSource;
  let browser: Browser;
  let adminToken: string;
  const logs: PageLog[] = [];
  const contexts: BrowserContext[] = [];
  let guestOrderNumber: string;
  let smtp: TestSmtpServer;

  const api = () => request(service.url);
  const asAdmin = (test: request.Test) => test.auth(adminToken, { type: 'bearer' });

  async function openPage(viewport = LAPTOP): Promise<Page> {
    const context = await newBrowserContext(browser, viewport);
    contexts.push(context);
    logs.push(await watchPage(context));
    return context.newPage();
  }

  /** The link to the storefront's `page` in the e-mails `to` has received (waiting for it to arrive). */
  async function linkInMail(
    to: string,
    page: 'verify-email' | 'reset-password' | 'orders/\\d+',
  ): Promise<string> {
    const pattern = new RegExp(`${storefront.url}/${page}\\?token=[\\w-]+`);
    let link: string | undefined;
    await eventually(
      () => {
        link = smtp.received
          .filter((mail) => mail.to.includes(to))
          .map(({ text }) => pattern.exec(text)?.[0])
          .find((found) => found !== undefined);
        return link !== undefined;
      },
      { ms: BROWSER_WAIT_MS },
    );
    return link!;
  }

  const heading = (page: Page, name: string | RegExp) =>
    page.getByRole('heading', { level: 1, name }).waitFor();

  /**
   * What every page must satisfy: the landmarks, a label for every field, nothing secret in `document.cookie`
   * or the page's storage; then a screenshot on a laptop and on a phone.
   */
  async function checkPage(page: Page, name: string) {
    const facts = (await page.evaluate(`(() => ({
      landmarks: ['header', 'nav', 'main'].filter((tag) => document.querySelector(tag) !== null),
      unlabelled: [...document.querySelectorAll('input:not([type=hidden]), select, textarea')]
        .filter((field) => field.labels.length === 0 && !field.getAttribute('aria-label'))
        .map((field) => field.outerHTML),
      cookie: document.cookie,
      storage: Object.entries(localStorage),
    }))()`)) as { landmarks: string[]; unlabelled: string[]; cookie: string; storage: string[][] };
    expect(facts.landmarks).toEqual(['header', 'nav', 'main']);
    expect(facts.unlabelled).toEqual([]);
    // The storefront's own cookie (the region) only: the session, cart and order secrets are HttpOnly.
    for (const cookie of facts.cookie.split(';').filter((part) => part.trim() !== '')) {
      expect(cookie.trim()).toMatch(/^storefront_region=\d+$/);
    }
    // Local storage holds the cart's id and the signed-in mark, never a token.
    for (const [key, value] of facts.storage) {
      expect(key).toMatch(/^storefront\.(cart|signed-in)$/);
      expect(value).toMatch(/^([0-9a-f-]{36}|1)$/);
    }
    await screenshot(page, `storefront-${name}-laptop`);
    const viewport = page.viewportSize() ?? LAPTOP;
    await page.setViewportSize(PHONE);
    await screenshot(page, `storefront-${name}-phone`);
    // A phone shows the page without sideways scrolling.
    expect(await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth')).toBe(true);
    await page.setViewportSize(viewport);
  }

  beforeAll(async () => {
    buildService();
    ensureStorefrontBuild();
    uploadDir = mkdtempSync(join(tmpdir(), 'commerce-storefront-uploads-'));
    const database = await createTestDatabase();
    dropDatabase = database.drop;
    const storefrontPort = await freePort();
    smtp = await TestSmtpServer.create();
    service = await startAppProcess({
      ...ADMIN_ENV,
      DATABASE_URL: database.url,
      JWT_SECRET: 'storefront-browser-test-secret-0123456789',
      CATALOG_PUBLIC: 'true',
      PAYMENT_METHODS: 'bank_transfer,cash_on_delivery',
      // The storefront runs on this host: the service takes the shopper's address from its X-Forwarded-For.
      TRUST_PROXY: 'loopback',
      // Every server-rendered page calls the API from one address.
      THROTTLE_LIMIT: '100000',
      THROTTLE_AUTH_LIMIT: '100000',
      THROTTLE_CART_LIMIT: '100000',
      UPLOAD_DIR: uploadDir,
      SMTP_URL: smtp.url,
      // The e-mails' links lead to the storefront's pages (`/reset-password?token=`).
      MAIL_LINK_BASE_URL: `http://localhost:${storefrontPort}`,
    });
    db = new DataSource(await buildDataSourceOptions(loadConfig({ DATABASE_URL: database.url })));
    await db.initialize();

    // The catalogue, through the API as the admin.
    adminToken = (await loginAdmin(service)).token;
    const category = async (body: object) =>
      (await asAdmin(api().post('/api/v1/categories')).send(body).expect(201)).body.data as { id: number };
    const clothing = await category({ name: 'Clothing', slug: 'clothing' });
    const shirts = await category({ name: 'Shirts', slug: 'shirts', parent_id: clothing.id });
    const home = await category({ name: 'Home', slug: 'home' });
    const upload = await asAdmin(api().post('/api/v1/upload'))
      .attach('file', PNG, { filename: 'shirt.png', contentType: 'image/png' })
      .expect(200);
    const shirt = (
      await asAdmin(api().post('/api/v1/products'))
        .send({
          name: 'Cotton Shirt',
          description: 'A soft cotton shirt for every day.',
          price: 25,
          category_id: shirts.id,
          images: [{ url: upload.body.data.filename, alt: 'A blue cotton shirt' }],
          options: [{ name: 'Size', values: ['S', 'M'] }],
        })
        .expect(201)
    ).body.data as { id: number };
    for (const [size, price, eur] of [
      ['S', 25, 23],
      ['M', 27, 24.5],
    ] as const) {
      await asAdmin(api().post(`/api/v1/products/${shirt.id}/variants`))
        .send({
          sku: `SHIRT-${size}`,
          options: { Size: size },
          price,
          stock: 5,
          prices: [
            { currency_code: 'usd', amount: price },
            { currency_code: 'eur', amount: eur },
          ],
        })
        .expect(201);
    }
    await asAdmin(api().post('/api/v1/products'))
      .send({
        name: 'Desk Lamp',
        description: 'A lamp for the desk.',
        price: 40,
        stock: 10,
        category_id: home.id,
        prices: [
          { currency_code: 'usd', amount: 40 },
          { currency_code: 'eur', amount: 37 },
        ],
      })
      .expect(201);
    await asAdmin(api().post('/api/v1/regions'))
      .send({ name: 'Europe', currency_code: 'eur', countries: ['DE', 'FR'] })
      .expect(201);
    await asAdmin(api().post('/api/v1/shipping-options'))
      .send({
        name: 'Standard delivery',
        price: 5,
        prices: [
          { currency_code: 'usd', amount: 5 },
          { currency_code: 'eur', amount: 4.5 },
        ],
      })
      .expect(201);

    storefront = await startStorefront(storefrontPort, service.url);
    browser = await launchChromium();
    // Compiling the service takes 20 s on an idle machine, building the storefront a minute or more.
  }, 20 * BROWSER_WAIT_MS);

  afterAll(async () => {
    for (const context of contexts) await context.close().catch(() => undefined);
    await browser?.close();
    await storefront?.stop();
    await service?.stop();
    await smtp?.stop();
    if (db?.isInitialized) await db.destroy();
    await dropDatabase?.();
    if (uploadDir) rmSync(uploadDir, { recursive: true, force: true });
  });

  it('the first load of the home page is measured (TTFB, load event, bytes transferred), median of 5 cold loads, into the results', async () => {
    // A load in a new browser context each time: nothing cached, as a first visit.
    const coldLoad = async () => {
      const page = await openPage();
      await page.goto(storefront.url);
      await heading(page, 'Welcome');
      const timing = (await page.evaluate(`(() => {
      const [navigation] = performance.getEntriesByType('navigation');
      // What the page needed to load, not what Next prefetches for its links afterwards.
      const resources = performance
        .getEntriesByType('resource')
        .filter((entry) => entry.startTime < navigation.loadEventEnd);
      return {
        ttfb_ms: Math.round(navigation.responseStart - navigation.requestStart),
        dom_content_loaded_ms: Math.round(navigation.domContentLoadedEventEnd),
        load_event_ms: Math.round(navigation.loadEventEnd),
        document_bytes: navigation.transferSize,
        resources: resources.length,
        transferred_bytes: navigation.transferSize + resources.reduce((sum, entry) => sum + entry.transferSize, 0),
      };
    })()`)) as Record<string, number>;
      await page.close();
      return timing;
    };
    const loads: Array<Record<string, number>> = [];
    for (let run = 0; run < 5; run += 1) loads.push(await coldLoad());
    const median = (key: string) => loads.map((load) => load[key]).sort((a, b) => a - b)[2];
    const timing = Object.fromEntries(Object.keys(loads[0]).map((key) => [key, median(key)]));
    expect(timing.ttfb_ms).toBeGreaterThan(0);
    expect(timing.load_event_ms).toBeGreaterThanOrEqual(timing.ttfb_ms);
    expect(timing.transferred_bytes).toBeGreaterThan(timing.document_bytes);
    mkdirSync(RESULTS_DIR, { recursive: true });
    writeFileSync(
      join(RESULTS_DIR, 'storefront-first-load.json'),
      `${JSON.stringify({ page: '/', viewport: LAPTOP, measured_at: new Date().toISOString(), runs: loads.length, median: timing, loads }, null, 2)}\n`,
    );
  });

  it('a guest finds a product by a search with a typo, picks a variant, checks out in another region and sees the order number; the order is in the database', async () => {
    const page = await openPage();
    await page.goto(storefront.url);
    await heading(page, 'Welcome');
    await expect(page.getByRole('link', { name: 'Clothing' }).isVisible()).resolves.toBe(true);
    // The keyboard reaches the skip link first, and the focus shows.
    await page.keyboard.press('Tab');
    expect(
      await page.evaluate(
        '[document.activeElement.textContent, getComputedStyle(document.activeElement).outlineStyle]',
      ),
    ).toEqual(['Skip to content', 'solid']);
    await checkPage(page, 'home');

    // The region and its currency: the cookie of the storefront, the prices in euros.
    await page.getByLabel('Region').selectOption({ label: 'Europe (EUR)' });
    await page.getByText('€37.00').waitFor();

    // A category page lists its subtree: Clothing shows the shirt of Shirts.
    await page.getByRole('link', { name: 'Clothing' }).click();
    await heading(page, 'Clothing');
    await page.getByRole('link', { name: /Cotton Shirt/ }).waitFor();
    await checkPage(page, 'category');

    // `cottn` is one typo away from `cotton`.
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Search' }).click();
    await page.getByLabel('Search products').fill('cottn');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await heading(page, 'Results for “cottn”');
    await page.getByRole('checkbox', { name: 'M (1)' }).waitFor();
    await checkPage(page, 'search');
    // A facet is a filter in the URL.
    await page.getByRole('checkbox', { name: 'M (1)' }).check();
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForURL(/option%5BSize%5D=M/);
    await page.getByRole('link', { name: /Cotton Shirt/ }).click();

    await heading(page, 'Cotton Shirt');
    // The image came through the storefront's proxy of the API's uploads.
    await page.getByRole('img', { name: 'A blue cotton shirt' }).waitFor();
    expect(
      await page.evaluate('document.querySelector(\'img[alt="A blue cotton shirt"]\').naturalWidth'),
    ).toBe(16);
    await page.getByLabel('Size').selectOption('M');
    await page.getByText('M: €24.50').waitFor();
    await page.getByLabel('Quantity').fill('2');
    await checkPage(page, 'product');
    await page.getByRole('button', { name: 'Add to cart' }).click();
    await page.getByText('Added 2 to the cart.').waitFor();

    await page.getByRole('link', { name: 'Cart, 2 items' }).click();
    await heading(page, 'Cart');
    await page.getByRole('rowheader', { name: 'Cotton Shirt (M)' }).waitFor();
    await page.getByText('€49.00').first().waitFor();
    await checkPage(page, 'cart');
    await page.getByRole('link', { name: 'Checkout' }).click();

    await heading(page, 'Checkout');
    await page.getByLabel('E-mail').fill('guest@example.com');
    await page.getByLabel('Full name').fill('Gina Guest');
    await page.getByLabel('Address line 1').fill('Hauptstraße 1');
    await page.getByLabel('City').fill('Berlin');
    await page.getByLabel('Postal code (optional)').fill('10115');
    await page.getByLabel('Country').selectOption('DE');
    await page.getByRole('button', { name: 'Continue to shipping' }).click();
    await page.getByRole('radio', { name: 'Standard delivery (€4.50)' }).check();
    await page.getByRole('radio', { name: /Bank transfer/ }).check();
    await page.getByRole('button', { name: 'Place order (€53.50)' }).waitFor();
    await checkPage(page, 'checkout');
    await page.getByRole('button', { name: 'Place order (€53.50)' }).click();

    await heading(page, 'Thank you for your order');
    guestOrderNumber = (await page.locator('.order-number').textContent()) ?? '';
    expect(guestOrderNumber).toMatch(/^ORD-\d{8}-[0-9A-Z]{8}$/);
    await page.getByRole('rowheader', { name: 'Cotton Shirt (M)' }).waitFor();
    await checkPage(page, 'confirmation');

    const [order] = await db.query(
      'SELECT id, user_id, email, currency_code, total_cents, payment_method, status FROM orders WHERE order_number = ?',
      [guestOrderNumber],
    );
    expect(order).toMatchObject({
      user_id: null,
      email: 'guest@example.com',
      currency_code: 'eur',
      payment_method: 'bank_transfer',
      status: 'pending',
    });
    expect(Number(order.total_cents)).toBe(5350);
    const items = await db.query('SELECT quantity, variant_title FROM order_items WHERE order_id = ?', [
      order.id,
    ]);
    expect(items).toEqual([{ quantity: 2, variant_title: 'M' }]);
    // The guest's manual payment was recorded for the order.
    const payments = await db.query('SELECT provider, status FROM payments WHERE order_id = ?', [order.id]);
    expect(payments).toEqual([{ provider: 'manual', status: 'pending' }]);
    await page.close();
  });

  it('a customer registers, orders signed in, finds the order in the account, manages addresses and sessions, signs out, fills a guest cart and signs in again: the cart becomes hers', async () => {
    const page = await openPage();
    // As a proxy in front of the storefront says: the shopper's address.
    await page.context().setExtraHTTPHeaders({ 'X-Forwarded-For': '203.0.113.7' });
    await page.goto(`${storefront.url}/account/register`);
    await heading(page, 'Create an account');
    await checkPage(page, 'register');
    await page.getByLabel('Username').fill('carla');
    await page.getByLabel('E-mail').fill('carla@example.com');
    await page.getByLabel('Password (at least 8 characters)').fill('carla-password-1');
    await page.getByRole('button', { name: 'Create account' }).click();
    await heading(page, 'Account');
    await page.getByText('carla@example.com').waitFor();
    await checkPage(page, 'account');

    await page.goto(`${storefront.url}/products/desk-lamp`);
    await heading(page, 'Desk Lamp');
    await page.getByRole('button', { name: 'Add to cart' }).click();
    await page.getByText('Added 1 to the cart.').waitFor();
    await page.getByRole('link', { name: 'Cart, 1 item' }).click();
    await page.getByRole('link', { name: 'Checkout' }).click();
    await heading(page, 'Checkout');
    // A customer gives no e-mail: the account's is used.
    await page.getByText('Confirmation goes to carla@example.com.').waitFor();
    await page.getByLabel('Full name').fill('Carla Customer');
    await page.getByLabel('Address line 1').fill('1 Main St');
    await page.getByLabel('City').fill('Springfield');
    await page.getByLabel('Country').fill('US');
    await page.getByRole('button', { name: 'Continue to shipping' }).click();
    await page.getByRole('radio', { name: 'Standard delivery ($5.00)' }).check();
    await page.getByRole('radio', { name: /Cash on delivery/ }).check();
    await page.getByRole('button', { name: 'Place order ($45.00)' }).click();
    await heading(page, 'Thank you for your order');
    const orderNumber = (await page.locator('.order-number').textContent()) ?? '';

    const [user] = await db.query('SELECT id FROM users WHERE username = ?', ['carla']);
    const [order] = await db.query('SELECT id, user_id, total_cents FROM orders WHERE order_number = ?', [
      orderNumber,
    ]);
    expect(order.user_id).toBe(user.id);
    expect(Number(order.total_cents)).toBe(4500);

    await page.getByRole('link', { name: 'Account' }).click();
    await page.getByRole('navigation', { name: 'Account' }).getByRole('link', { name: 'Orders' }).click();
    await heading(page, 'Orders');
    // Her own order, not the guest's.
    await page.getByRole('link', { name: orderNumber }).waitFor();
    expect(await page.getByRole('link', { name: guestOrderNumber }).count()).toBe(0);
    await checkPage(page, 'orders');
    await page.getByRole('link', { name: orderNumber }).click();
    await heading(page, `Order ${orderNumber}`);
    await page.getByRole('rowheader', { name: 'Desk Lamp' }).waitFor();
    await checkPage(page, 'order');

    await page.getByRole('link', { name: 'Addresses' }).click();
    await heading(page, 'Addresses');
    await page.getByLabel('Full name').fill('Carla at work');
    await page.getByLabel('Address line 1').fill('2 Office Rd');
    await page.getByLabel('City').fill('Springfield');
    await page.getByLabel('Country').fill('US');
    await page.getByRole('button', { name: 'Add address' }).click();
    await page.getByRole('button', { name: 'Delete Carla at work, 2 Office Rd' }).waitFor();
    expect(await db.query('SELECT name FROM addresses WHERE user_id = ?', [user.id])).toEqual([
      { name: 'Carla at work' },
    ]);
    await checkPage(page, 'addresses');
    await page.getByRole('button', { name: 'Delete Carla at work, 2 Office Rd' }).click();
    await page.getByText('No saved addresses.').waitFor();
    expect(await db.query('SELECT name FROM addresses WHERE user_id = ?', [user.id])).toEqual([]);

    await page.getByRole('link', { name: 'Sessions' }).click();
    await heading(page, 'Sessions');
    await page.getByRole('rowheader', { name: /\(this browser\)/ }).waitFor();
    // The session's address is the shopper's, not the storefront server's.
    await page.getByRole('cell', { name: '203.0.113.7' }).waitFor();
    await checkPage(page, 'sessions');
    await page.getByRole('link', { name: 'Password' }).click();
    await heading(page, 'Change password');
    await checkPage(page, 'password');

    await page.getByRole('link', { name: 'Profile' }).click();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await heading(page, 'Welcome');
    const [{ live }] = await db.query(
      'SELECT COUNT(*) AS live FROM sessions WHERE user_id = ? AND revoked_at IS NULL',
      [user.id],
    );
    expect(Number(live)).toBe(0);

    // Signed out, she fills a guest cart; signing in makes it hers.
    await page.goto(`${storefront.url}/products/desk-lamp`);
    await page.getByRole('button', { name: 'Add to cart' }).click();
    await page.getByText('Added 1 to the cart.').waitFor();
    const cartId = (await page.evaluate("localStorage.getItem('storefront.cart')")) as string;
    expect(await db.query('SELECT user_id FROM carts WHERE id = ?', [cartId])).toEqual([{ user_id: null }]);
    await page.goto(`${storefront.url}/account/orders`);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    expect(await page.getByRole('link', { name: orderNumber }).count()).toBe(0);

    await page.getByLabel('Username').fill('carla');
    await page.getByLabel('Password').fill('carla-password-1');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('link', { name: orderNumber }).waitFor();
    await page.getByRole('link', { name: 'Cart, 1 item' }).waitFor();
    expect(await db.query('SELECT user_id FROM carts WHERE id = ?', [cartId])).toEqual([
      { user_id: user.id },
    ]);
    await page.close();
  });

  it("the e-mails' links lead to the storefront: a customer confirms her address, then, having forgotten her password, sets a new one and signs in with it", async () => {
    const page = await openPage();
    // The registration's e-mail links to the storefront's page that confirms the address.
    const verify = await linkInMail('carla@example.com', 'verify-email');
    await page.goto(verify);
    await heading(page, 'Confirm your e-mail address');
    await checkPage(page, 'verify-email');
    await page.getByRole('button', { name: 'Confirm my e-mail address' }).click();
    await page.getByText('Your e-mail address is confirmed.').waitFor();
    expect(await db.query("SELECT email_verified FROM users WHERE username = 'carla'")).toEqual([
      { email_verified: 1 },
    ]);

    await page.goto(`${storefront.url}/reset-password`);
    await heading(page, 'Reset your password');
    await checkPage(page, 'reset-password');
    await page.getByLabel('E-mail').fill('carla@example.com');
    await page.getByRole('button', { name: 'Send reset link' }).click();
    await page.getByText('If an account uses carla@example.com, a link').waitFor();

    const link = await linkInMail('carla@example.com', 'reset-password');
    await page.goto(link);
    await heading(page, 'Reset your password');
    await checkPage(page, 'reset-password-confirm');
    await page.getByLabel('New password (at least 8 characters)').fill('carla-password-2');
    await page.getByRole('button', { name: 'Set new password' }).click();
    await page.getByText('Your password has been changed.').waitFor();

    await page.getByRole('link', { name: 'Sign in' }).click();
    await page.getByLabel('Username').fill('carla');
    await page.getByLabel('Password').fill('carla-password-2');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText('carla@example.com').waitFor();
    // The reset ended the sessions of before: only this sign-in's is live.
    const [{ live }] = await db.query(
      "SELECT COUNT(*) AS live FROM sessions s JOIN users u ON u.id = s.user_id WHERE u.username = 'carla' AND s.revoked_at IS NULL",
    );
    expect(Number(live)).toBe(1);
    await page.close();
  });

  it("a draft order's payment link opens on the storefront: the order read with the link's token, paid by bank transfer, no sign-in", async () => {
    const [lamp] = await db.query("SELECT id FROM products WHERE name = 'Desk Lamp'");
    const [shipping] = await db.query("SELECT id FROM shipping_options WHERE name = 'Standard delivery'");
    const draft = (
      await asAdmin(api().post('/api/v1/admin/carts')).send({ email: 'phone-order@example.com' }).expect(201)
    ).body.data as { id: string };
    await asAdmin(api().post(`/api/v1/carts/${draft.id}/items`))
      .send({ product_id: lamp.id, quantity: 1 })
      .expect(201);
    await asAdmin(api().put(`/api/v1/carts/${draft.id}`))
      .send({
        shipping_address: {
          name: 'Pat Phone',
          line1: '5 Dial Road',
          city: 'Springfield',
          region: 'IL',
          postal_code: '62701',
          country: 'US',
        },
        shipping_option_id: shipping.id,
      })
      .expect(200);
    const completed = await asAdmin(api().post(`/api/v1/admin/carts/${draft.id}/complete`)).send({
      payment_method: 'bank_transfer',
    });
    expect(completed.body).toMatchObject({ code: 201 });
    const order = completed.body.data as { id: number; order_number: string };

    const link = await linkInMail('phone-order@example.com', 'orders/\\d+');
    expect(link.startsWith(`${storefront.url}/orders/${order.id}?token=`)).toBe(true);
    const page = await openPage();
    await page.goto(link);
    await heading(page, `Order ${order.order_number}`);
    await checkPage(page, 'payment-link');
    await page.getByRole('button', { name: 'Pay this order' }).click();
    await page.getByRole('status').filter({ hasText: 'Payment by bank transfer noted' }).waitFor();
    expect(await db.query('SELECT provider, status FROM payments WHERE order_id = ?', [order.id])).toEqual([
      { provider: 'manual', status: 'pending' },
    ]);
    await page.close();
    // With a wrong token the order is not found (asked outside the browser, whose console would log the 404).
    const wrong = await fetch(`${storefront.url}/orders/${order.id}?token=wrong`);
    expect(wrong.status).toBe(404);
    expect(await wrong.text()).not.toContain(order.order_number);
  });

  it('no page logged a console error or warning, nor threw', () => {
    const problems = logs.flatMap((log) => [
      ...log.errors,
      ...log.messages.filter((message) => /^(error|warning):/.test(message)),
    ]);
    expect(problems).toEqual([]);
  });
});
