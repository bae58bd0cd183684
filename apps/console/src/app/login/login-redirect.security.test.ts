/**
 * Issue 20 item 8 — the login page's `next=` is no open redirect, attacked in a real browser
 * (Chromium) on the built console in front of a real operator: after logging in, every `next`
 * that resolves to another origin lands on the console's own `/`; a path of the console is
 * followed. Requests to evil.example are answered by the test, so a redirect there shows.
 */
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAdminApi, type AdminApiProcess } from '../../../../operator/src/http/testing/admin-api-process.ts';
import type { SpawnedServer } from '../../../../operator/src/testing/spawn-server.ts';
import { ensureConsoleBuilt, startConsole } from '../../testing/console-process.ts';

let api: AdminApiProcess;
let web: SpawnedServer;
let browser: Browser;

beforeAll(async () => {
  await ensureConsoleBuilt();
  api = await startAdminApi();
  web = await startConsole(api.url);
  browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}, 400_000);
afterAll(async () => {
  await browser?.close();
  await web?.stop();
  await api?.stop();
});

/** Logs in on /login?next=… and answers where the browser ended up. */
async function landAfterLogin(next: string): Promise<URL> {
  const context = await browser.newContext();
  try {
    await context.route(/^https?:\/\/evil\.example\//, (route) => route.fulfill({ status: 200, contentType: 'text/html', body: '<h1>evil</h1>' }));
    const page = await context.newPage();
    await page.goto(`${web.url}/login?next=${encodeURIComponent(next)}`);
    await page.getByTestId('login-token').fill(api.adminToken);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.waitForURL((u) => u.pathname !== '/login', { timeout: 30_000 });
    await page.waitForLoadState();
    return new URL(page.url());
  } finally {
    await context.close();
  }
}

describe('login next= (real browser, built console)', () => {
  it.each(['/\\evil.example', '//evil.example', 'https://evil.example', '/\\/evil.example/x', '/.//evil.example'])('next=%s → the console\'s own /', async (next) => {
    const landed = await landAfterLogin(next);
    expect(landed.origin).toBe(new URL(web.url).origin);
    expect(landed.pathname).toBe('/');
  }, 60_000);

  it('next=/audit?who=x (a path of the console) is followed', async () => {
    const landed = await landAfterLogin('/audit?who=x');
    expect(landed.origin).toBe(new URL(web.url).origin);
    expect(`${landed.pathname}${landed.search}`).toBe('/audit?who=x');
  }, 60_000);
});
