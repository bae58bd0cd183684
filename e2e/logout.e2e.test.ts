/**
 * Logging out from the nav: the session ends on the server (its old cookie no longer works), the
 * browser lands on the login page, pages send it back there, the logout is audited, and logging
 * in again works.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { SESSION_COOKIE } from '@orrery/api';
import { adminQuery } from './admin-api.ts';
import { goto, launchChromium, logIn, screenshot } from './browser.ts';

const p = inject('platform');
let browser: Browser;

beforeAll(async () => {
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
});

interface AuditRow {
  id: number;
  who: string;
  action: string;
  result: string;
}

describe('logout', () => {
  it('ends the session, returns to the login page and is audited', async () => {
    const ctx = await browser.newContext({ viewport: { width: 1200, height: 800 } });
    try {
      const page = await ctx.newPage();
      await logIn(page, p.consoleUrl, p.viewer);
      await goto(page, `${p.consoleUrl}/functions`);
      await page.getByTestId('function-row-canary').waitFor({ timeout: 30_000 });
      const session = (await ctx.cookies(p.consoleUrl)).find((c) => c.name === SESSION_COOKIE);
      expect(session?.value).toMatch(/.+/);
      const whoami = async (cookie?: string) => {
        const res = await fetch(`${p.consoleUrl}/trpc/auth.whoami`, { headers: cookie ? { cookie: `${SESSION_COOKIE}=${cookie}` } : {} });
        return ((await res.json()) as { result: { data: { who: string | null } } }).result.data.who;
      };
      expect(await whoami(session!.value)).toBe(p.viewer.user);
      const before = await adminQuery<{ items: AuditRow[] }>(p, 'audit.list', { action: 'auth.logout', who: p.viewer.user });

      await page.getByRole('button', { name: 'Log out' }).click();
      await page.waitForURL(/\/login(\?|$)/, { timeout: 30_000 });
      await page.getByRole('button', { name: 'Log in' }).waitFor();
      await screenshot(page, 'logged-out');

      // The server forgot the session: the cookie the browser held is worthless now…
      expect(await whoami(session!.value)).toBeNull();
      // …and the browser no longer holds it.
      expect((await ctx.cookies(p.consoleUrl)).find((c) => c.name === SESSION_COOKIE && c.value !== '')).toBeUndefined();
      // A page sends the logged-out browser to the login page, remembering where it wanted to go.
      await goto(page, `${p.consoleUrl}/audit`);
      await page.waitForURL(/\/login\?next=%2Faudit$/, { timeout: 30_000 });

      const after = await adminQuery<{ items: AuditRow[] }>(p, 'audit.list', { action: 'auth.logout', who: p.viewer.user });
      const newRows = after.items.filter((r) => !before.items.some((b) => b.id === r.id));
      expect(newRows.map((r) => `${r.who} ${r.action} ${r.result}`)).toEqual([`${p.viewer.user} auth.logout ok`]);

      // Logging in again from there works and lands on the page asked for.
      await page.getByTestId('login-method-password').check();
      await page.getByTestId('login-user').fill(p.viewer.user);
      await page.getByTestId('login-password').fill(p.viewer.password);
      await page.getByRole('button', { name: 'Log in' }).click();
      await page.waitForURL(/\/audit$/, { timeout: 30_000 });
      expect(await page.getByTestId('role').textContent()).toBe('viewer');
    } finally {
      await ctx.close();
    }
  });
});
