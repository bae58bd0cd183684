/**
 * A login that finishes while the page's first session check is still on its way: the console
 * must not act on that stale "no session" answer (it used to, and sent the freshly logged-in
 * browser straight back to the login page — a CI flake under load, and a fast typist's bug).
 * A login whose connection is lost under it is sent again (a CI run once showed "Failed to
 * fetch" on the login page); a login the API refused is not.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { APIResponse, Browser, Route } from 'playwright-core';
import { goto, launchChromium, loginAlert } from './browser.ts';

const p = inject('platform');
let browser: Browser;

beforeAll(async () => {
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
});

describe('login', () => {
  it('lands logged in although the first whoami answer (no session) arrives after the login', async () => {
    const ctx = await browser.newContext({ viewport: { width: 1200, height: 800 } });
    try {
      const page = await ctx.newPage();
      // Hold the page's first whoami: answered by the server now, before the login, delivered
      // to the page only once the login has finished.
      let release!: () => void;
      const released = new Promise<void>((ok) => (release = ok));
      let held!: (answer: string) => void;
      const heldAnswer = new Promise<string>((ok) => (held = ok));
      let first = true;
      await page.route(/\/trpc\/[^?]*auth\.whoami/, async (route: Route) => {
        if (!first) return route.continue();
        first = false;
        const answer: APIResponse = await route.fetch();
        held(await answer.text());
        await released;
        await route.fulfill({ response: answer });
      });
      await goto(page, `${p.consoleUrl}/login`);
      expect(await heldAnswer).toContain('"who":null');
      await page.getByTestId('login-token').fill(p.adminToken);
      const loggedIn = page.waitForResponse((r) => r.url().includes('auth.login'));
      await page.getByRole('button', { name: 'Log in' }).click();
      expect((await loggedIn).status()).toBe(200);
      release();
      await page.getByTestId('role').waitFor({ timeout: 30_000 });
      expect(await page.getByTestId('role').textContent()).toBe('admin');
      expect(new URL(page.url()).pathname).toBe('/');
    } finally {
      await ctx.close();
    }
  });

  it('a login whose connection resets under it is sent again and lands; a refused one is not sent again', async () => {
    const ctx = await browser.newContext({ viewport: { width: 1200, height: 800 } });
    try {
      const page = await ctx.newPage();
      const logins: string[] = [];
      let reset = false;
      await page.route(/\/trpc\/[^?]*auth\.login/, async (route: Route) => {
        logins.push(route.request().method());
        // The first login never reaches the console: the browser sees its connection reset.
        if (!reset) {
          reset = true;
          return route.abort('connectionreset');
        }
        return route.continue();
      });
      await goto(page, `${p.consoleUrl}/login`);
      await page.getByTestId('login-token').fill('orr_not-the-admin-token');
      await page.getByRole('button', { name: 'Log in' }).click();
      // Reset, sent again, refused by the API: its words are shown, and nothing is sent a third time.
      const alert = loginAlert(page);
      await alert.waitFor({ timeout: 30_000 });
      expect(await alert.textContent()).toMatch(/\S/);
      expect(await alert.textContent()).not.toMatch(/fetch/i);
      expect(logins).toEqual(['POST', 'POST']);

      logins.length = 0;
      await page.getByTestId('login-token').fill(p.adminToken);
      await page.getByRole('button', { name: 'Log in' }).click();
      await page.getByTestId('role').waitFor({ timeout: 30_000 });
      expect(await page.getByTestId('role').textContent()).toBe('admin');
      expect(logins).toEqual(['POST']);
    } finally {
      await ctx.close();
    }
  });
});
