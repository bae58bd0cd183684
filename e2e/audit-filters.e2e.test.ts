/**
 * The audit log's filters: who, action (exact or a prefix ending in "."), target and result each
 * narrow the list, are kept in the URL (a reload or a shared link shows the same rows), a
 * filter nothing matches shows the empty state, and "Clear filters" brings every row back.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { adminPage, criticalViolations, goto, launchChromium, logIn, screenshot } from './browser.ts';

const p = inject('platform');
let browser: Browser;
let page: Page;

beforeAll(async () => {
  browser = await launchChromium();
  // Audit rows this spec can count on whatever ran before it: a viewer's login, and a rollback
  // the API refuses them (result error, target default/canary).
  const viewer = await browser.newContext();
  try {
    const v = await viewer.newPage();
    await logIn(v, p.consoleUrl, p.viewer);
    const refused = await v.request.post(`${p.consoleUrl}/trpc/functions.rollback`, { data: { name: 'canary', revision: 'canary-00001' } });
    expect(refused.status()).toBe(403);
  } finally {
    await viewer.close();
  }
  page = await adminPage(browser, p.consoleUrl, p.adminToken);
});
afterAll(async () => {
  await browser?.close();
});

interface Row {
  who: string;
  action: string;
  target: string;
  result: string;
}

/** The rows on the page, once the list has answered (possibly with the empty state). */
async function rows(): Promise<Row[]> {
  await page.locator('[data-testid="audit-table"], [data-testid="audit-empty"]').first().waitFor({ timeout: 30_000 });
  return page.getByTestId('audit-row').evaluateAll((trs) =>
    trs.map((tr) => ({
      // "vera (viewer)": the name before the role.
      who: (tr.querySelector('[data-testid="audit-who"]')?.textContent ?? '').replace(/\s*\(.*\)$/, ''),
      action: tr.querySelector('[data-testid="audit-action"]')?.textContent ?? '',
      target: tr.querySelector('[data-testid="audit-target"]')?.textContent ?? '',
      result: tr.getAttribute('data-result') ?? '',
    })),
  );
}
const searchParams = () => Object.fromEntries(new URL(page.url()).searchParams);

describe('audit log filters', () => {
  it('each filter narrows the list and is kept in the URL; no match shows the empty state; clearing restores', async () => {
    await goto(page, `${p.consoleUrl}/audit`);
    await expect.poll(async () => new Set((await rows()).map((r) => r.who)).size, { timeout: 30_000 }).toBeGreaterThan(1);
    const unfiltered = await rows();
    expect(unfiltered.map((r) => r.action)).toEqual(expect.arrayContaining(['auth.login', 'functions.rollback']));

    // Who: exact user.
    await page.getByTestId('audit-filter-who').fill(p.viewer.user);
    await page.waitForURL((u) => u.searchParams.get('who') === p.viewer.user);
    await expect.poll(async () => [...new Set((await rows()).map((r) => r.who))]).toEqual([p.viewer.user]);

    // And result: the viewer's refused rollback only.
    await page.getByTestId('audit-filter-result').selectOption('error');
    await page.waitForURL((u) => u.searchParams.get('result') === 'error');
    await expect.poll(async () => (await rows()).every((r) => r.result === 'error' && r.who === p.viewer.user)).toBe(true);
    expect((await rows()).map((r) => `${r.action} ${r.target}`)).toContain('functions.rollback default/canary');
    await screenshot(page, 'audit-filtered');
    expect(await criticalViolations(page)).toEqual([]);

    // The URL is the filter: a reload shows the same rows with the form filled in.
    const filtered = await rows();
    await page.reload();
    expect(await page.getByTestId('audit-filter-who').inputValue()).toBe(p.viewer.user);
    expect(await page.getByTestId('audit-filter-result').inputValue()).toBe('error');
    await expect.poll(async () => (await rows()).length).toBe(filtered.length);

    // Action: exact, then a prefix ending in "." (who and result cleared first).
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await page.waitForURL((u) => u.search === '');
    await page.getByTestId('audit-filter-action').fill('auth.login');
    await page.waitForURL((u) => u.searchParams.get('action') === 'auth.login');
    await expect.poll(async () => [...new Set((await rows()).map((r) => r.action))]).toEqual(['auth.login']);
    await page.getByTestId('audit-filter-action').fill('auth.');
    await expect.poll(async () => (await rows()).every((r) => r.action.startsWith('auth.'))).toBe(true);

    // Target contains: only rows about the canary.
    await page.getByTestId('audit-filter-action').fill('');
    await page.getByTestId('audit-filter-target').fill('default/canary');
    await page.waitForURL((u) => u.searchParams.get('target') === 'default/canary' && !u.searchParams.has('action'));
    await expect.poll(async () => {
      const r = await rows();
      return r.length > 0 && r.every((x) => x.target.includes('default/canary'));
    }).toBe(true);

    // Nothing matches: the empty state, no table.
    await page.getByTestId('audit-filter-who').fill('nobody-e2e');
    await page.getByTestId('audit-empty').waitFor({ timeout: 30_000 });
    expect(await page.getByTestId('audit-table').count()).toBe(0);
    expect(searchParams()).toMatchObject({ who: 'nobody-e2e', target: 'default/canary' });
    await screenshot(page, 'audit-empty');

    // Clear filters: the URL is bare and the rows are back.
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await page.waitForURL((u) => u.search === '');
    await expect.poll(async () => new Set((await rows()).map((r) => r.who)).size).toBeGreaterThan(1);
    for (const id of ['audit-filter-who', 'audit-filter-action', 'audit-filter-target']) expect(await page.getByTestId(id).inputValue()).toBe('');
  });
});
