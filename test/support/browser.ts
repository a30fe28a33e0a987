import { describe } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

const ROOT = join(__dirname, '..', '..');

/** Debian's `chromium` package (README: browser tests); never a browser downloaded by Playwright. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** What the browser tests leave behind for people to look at (git-ignored). */
export const RESULTS_DIR = join(ROOT, 'test-results');
export const SCREENSHOTS_DIR = join(RESULTS_DIR, 'screenshots');

/**
 * How long one wait of a browser test (a locator's state, a response, a frame, a row in the database) may take.
 * Each waits for its event, never for a fixed time; this is only the point at which a wait is a failure, set far
 * above what any takes on an idle machine (well under a second) so that a machine shared with busy neighbours
 * (a load of 15 on 2 cores) passes as surely as an idle one.
 */
export const BROWSER_WAIT_MS = 60_000;

export const LAPTOP = { width: 1280, height: 800 };
export const TABLET = { width: 820, height: 1180 };

/**
 * `describe` when Chromium is installed, or when REQUIRE_BROWSER=1 (.ci/run sets it: a missing browser then fails
 * the run instead of skipping); otherwise `describe.skip`, with the reason printed.
 */
export function describeInBrowser(): typeof describe | typeof describe.skip {
  if (existsSync(CHROMIUM_PATH) || process.env.REQUIRE_BROWSER === '1') return describe;
  console.warn(
    `${CHROMIUM_PATH} not found: the admin console's browser tests are skipped ` +
      '(apt-get install chromium, or CHROMIUM_PATH; README.md#browser-tests).',
  );
  return describe.skip;
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    timeout: 3 * BROWSER_WAIT_MS,
  });
}

/** A fresh browser context (its own storage and cache) whose waits and navigations time out after BROWSER_WAIT_MS. */
export async function newBrowserContext(browser: Browser, viewport = LAPTOP): Promise<BrowserContext> {
  const context = await browser.newContext({ viewport });
  context.setDefaultTimeout(BROWSER_WAIT_MS);
  return context;
}

/**
 * Builds the console from its sources (and the SDK's) into a directory of its own for one test file to serve
 * (ADMIN_CONSOLE_DIR), as buildService() does for the service: the test sees the current sources, and a build
 * running meanwhile (`npm start` runs one) never empties the directory under a page. Removed on exit.
 */
export function buildConsole(): string {
  const outDir = mkdtempSync(join(tmpdir(), 'commerce-admin-console-'));
  execFileSync(
    process.execPath,
    [join(ROOT, 'node_modules/vite/bin/vite.js'), 'build', '--outDir', outDir, '--logLevel', 'warn'],
    // Jest sets NODE_ENV=test, which would make Vite bundle React's development build.
    {
      cwd: join(ROOT, 'packages', 'admin'),
      stdio: 'inherit',
      env: { ...process.env, NODE_ENV: 'production' },
    },
  );
  process.once('exit', () => rmSync(outDir, { recursive: true, force: true }));
  return outDir;
}

/** What a page reported while a test drove it. */
export interface PageLog {
  /** Every message of the page's console, as `type: text`. */
  messages: string[];
  /** Content-Security-Policy violations: the browser's own reports and the `securitypolicyviolation` events. */
  cspViolations(): string[];
  /** Uncaught errors of the page's scripts. */
  errors: string[];
}

/**
 * Records the page's console and its uncaught errors. Every CSP violation is also reported as a console error by
 * a listener added before the page's own scripts run (Playwright injects it, so the policy does not apply to it).
 */
export async function watchPage(context: BrowserContext): Promise<PageLog> {
  const log: PageLog = {
    messages: [],
    errors: [],
    cspViolations: () =>
      log.messages.filter((message) => /Content Security Policy|securitypolicyviolation/i.test(message)),
  };
  await context.addInitScript({
    content:
      "document.addEventListener('securitypolicyviolation', (event) => console.error(" +
      '`securitypolicyviolation: ${event.effectiveDirective} blocked ${event.blockedURI} ' +
      '(${event.sourceFile}:${event.lineNumber})`));',
  });
  context.on('console', (message) => log.messages.push(`${message.type()}: ${message.text()}`));
  context.on('weberror', (error) => log.errors.push(String(error.error())));
  return log;
}

/**
 * Saves a screenshot of the page's viewport to test-results/screenshots/<name>.png (git-ignored), scrolled to its
 * top (where a person arrives) unless `scrolled`.
 */
export async function screenshot(page: Page, name: string, { scrolled = false } = {}): Promise<string> {
  mkdirSync(SCREENSHOTS_DIR, { recursive: true });
  if (!scrolled) await page.evaluate('window.scrollTo(0, 0)');
  const path = join(SCREENSHOTS_DIR, `${name}.png`);
  await page.screenshot({ path, fullPage: false });
  return path;
}
