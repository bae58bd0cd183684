/**
 * Chromium for the specs: Debian's /usr/bin/chromium driven by playwright-core (no browser
 * download), with the flags that keep it off the network; screenshots and axe checks per page.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { AxeBuilder } from '@axe-core/playwright';
import { chromium, type Browser, type Page, type Request } from 'playwright-core';

export const ARTIFACTS = join(import.meta.dirname, 'artifacts');

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

/** Saves `e2e/artifacts/<name>.png` (git-ignored) of the whole page. */
export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });
}

/** axe-core's critical violations on the page, as readable lines (empty = pass). */
export async function criticalViolations(page: Page): Promise<string[]> {
  const result = await new AxeBuilder({ page }).analyze();
  return result.violations.filter((v) => v.impact === 'critical').map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).slice(0, 3).join(', ')})`);
}

/**
 * Load failures below the console: net::ERR_NETWORK_CHANGED (the machine's network configuration
 * changed under the browser, seen once in CI) and a load Chromium replaced with its own error page
 * (`interrupted by another navigation to "chrome-error://chromewebdata/"`, seen once in CI right
 * after a login: a kept-alive connection closed under the request). Neither says anything about
 * the console; a console that is down fails all three attempts.
 */
const TRANSIENT_LOAD_FAILURE = /net::ERR_NETWORK_CHANGED|net::ERR_CONNECTION_RESET|net::ERR_EMPTY_RESPONSE|chrome-error:\/\/chromewebdata/;

/** `page.goto`, tried again (up to 3 times) after a transient load failure; any other failure is thrown at once. */
export async function goto(page: Page, url: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await page.goto(url);
      return;
    } catch (err) {
      if (attempt >= 3 || !TRANSIENT_LOAD_FAILURE.test(String((err as Error).message))) throw err;
      await new Promise((r) => setTimeout(r, 250 * attempt));
    }
  }
}

/** Logs in through the login form with the admin token or a user's password. */
export async function logIn(page: Page, consoleUrl: string, as: { token: string } | { user: string; password: string }): Promise<void> {
  await goto(page, `${consoleUrl}/login`);
  // The form renders once the page's JavaScript has hydrated (useSearchParams sits under a
  // Suspense): 60 s, as for the role below — a CI run beside the chart installs once took over
  // playwright's default 30 s to show it.
  const field = page.getByTestId('login-method-token');
  try {
    await field.waitFor({ timeout: 60_000 });
  } catch (err) {
    throw new Error(`the login form did not render: ${await loginState(page)}`, { cause: err });
  }
  if ('token' in as) {
    await page.getByTestId('login-token').fill(as.token);
  } else {
    await page.getByTestId('login-method-password').check();
    await page.getByTestId('login-user').fill(as.user);
    await page.getByTestId('login-password').fill(as.password);
  }
  // Requests the browser lost (no answer at all), named in the failure's message.
  const lost: string[] = [];
  const onFailed = (r: Request) => lost.push(`${r.method()} ${new URL(r.url()).pathname}: ${r.failure()?.errorText ?? '?'}`);
  page.on('requestfailed', onFailed);
  await page.getByRole('button', { name: 'Log in' }).click();
  try {
    // 60 s: the browser specs run beside the chart tests' installs on two loaded cores. (The two
    // logins that timed out in CI were not slow: the console acted on a session check answered
    // before the login and bounced back to /login; fixed, see login-race.e2e.test.ts.)
    await page.getByTestId('role').waitFor({ timeout: 60_000 });
  } catch (err) {
    throw new Error(`logging in did not reach a page showing the role: ${await loginState(page)}; requests lost: ${lost.join(', ') || 'none'}`, { cause: err });
  } finally {
    page.off('requestfailed', onFailed);
  }
}

/** The login form's own alert (Next.js keeps an empty route announcer with role=alert as well). */
export const loginAlert = (page: Page) => page.getByRole('form', { name: 'Log in' }).getByRole('alert');

/** What the page showed when a login did not finish, for the failure's message (never the token). */
async function loginState(page: Page): Promise<string> {
  const alert = await loginAlert(page).first().textContent({ timeout: 1_000 }).catch(() => null);
  const button = await page.getByRole('button', { name: /Log(ging)? in/ }).first().textContent({ timeout: 1_000 }).catch(() => null);
  const at = new URL(page.url());
  // The query shows a bounce: /login?next=%2F means the login went through and a page sent us back.
  return `at ${at.pathname}${at.search}; alert: ${alert ?? 'none'}; login button: ${button ?? 'gone'}`;
}

/** A fresh desktop-sized page, logged in with the admin token (the specs' usual starting point). */
export async function adminPage(browser: Browser, consoleUrl: string, adminToken: string): Promise<Page> {
  const page = await (await browser.newContext({ viewport: { width: 1400, height: 900 } })).newPage();
  await logIn(page, consoleUrl, { token: adminToken });
  return page;
}
