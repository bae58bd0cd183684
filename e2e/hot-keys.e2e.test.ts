/**
 * Hot keys end to end on the local platform: a skewed load through both routers to the cart
 * example (one session takes about 60 % of the requests, the rest spread over 24 sessions) shows
 * in the cart keyspace's hot-keys panel — the bar chart and its table, for the state calls and for
 * the sticky requests with the owner worker — and raises the overview's hot-key alert, whose link
 * opens the panel. A viewer sees keyed hashes instead of the session ids, in the panel and in the
 * alert. The load runs for the whole file (counts decay within a minute once it stops).
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { adminQuery } from './admin-api.ts';
import { adminPage, criticalViolations, goto, launchChromium, logIn, screenshot } from './browser.ts';

const p = inject('platform');
const WHALE = 'e2e-hot-whale';
let browser: Browser;
let page: Page;
let stopLoad = false;
let load: Promise<void> = Promise.resolve();
const outcomes: Record<string, number> = {};

/** One cart request: mostly reads (one state call each), a write now and then (read + CAS). */
async function cartRequest(router: string, session: string, write: boolean): Promise<void> {
  const res = await fetch(`${router}/default/cart/`, {
    method: write ? 'POST' : 'GET',
    headers: { 'x-session-id': session, 'content-type': 'application/json' },
    body: write ? JSON.stringify({ item: 'pear', qty: 1 }) : undefined,
    signal: AbortSignal.timeout(30_000),
  });
  await res.arrayBuffer();
  outcomes[res.status] = (outcomes[res.status] ?? 0) + 1;
}

function startLoad(): Promise<void> {
  let n = 0;
  const lane = async (lane: number) => {
    while (!stopLoad) {
      const i = n++;
      // 6 in 10 requests for the whale, through both routers in turn.
      const session = i % 10 < 6 ? WHALE : `e2e-hot-minnow-${i % 24}`;
      await cartRequest(p.routerUrls[(i + lane) % p.routerUrls.length]!, session, i % 7 === 0).catch(() => {
        outcomes.error = (outcomes.error ?? 0) + 1;
      });
    }
  };
  return Promise.all([0, 1, 2, 3].map(lane)).then(() => undefined);
}

beforeAll(async () => {
  browser = await launchChromium();
  page = await adminPage(browser, p.consoleUrl, p.adminToken);
  load = startLoad();
  // The cart keeps two workers (minScale 2): wait until its requests are served.
  const deadline = Date.now() + 120_000;
  while ((outcomes[200] ?? 0) < 50) {
    if (Date.now() > deadline) throw new Error(`the cart load is not being served: ${JSON.stringify(outcomes)}`);
    await new Promise((r) => setTimeout(r, 250));
  }
});
afterAll(async () => {
  stopLoad = true;
  await load;
  await browser?.close();
});

async function text(testId: string, on: Page = page): Promise<string> {
  const l = on.getByTestId(testId).first();
  await l.waitFor({ timeout: 30_000 });
  return (await l.textContent()) ?? '';
}
const firstNumber = (s: string): number => Number(/-?\d+(\.\d+)?/.exec(s)?.[0] ?? NaN);

describe('hot keys', () => {
  it('the cart keyspace’s panel shows the whale first, above the alert share, in the chart and the table', async () => {
    await goto(page, `${p.consoleUrl}/state/default?keyspace=cart`);
    await page.getByTestId('hot-keys-panel').waitFor({ timeout: 30_000 });
    // State calls: the cart function stores each session under cart/<session>.
    await expect.poll(() => text('hot-key-state-key-0'), { timeout: 60_000 }).toBe(`cart/${WHALE}`);
    expect(firstNumber(await text('hot-key-state-share-0'))).toBeGreaterThan(20);
    expect(await page.getByTestId('hot-key-state-0').getAttribute('data-hot')).toBe('true');
    expect(await page.getByTestId('hot-keys-state-table').locator('tbody tr').count()).toBeGreaterThan(1);
    // Sticky requests: the session id itself, with its owner worker.
    await expect.poll(() => text('hot-key-sticky-key-0'), { timeout: 60_000 }).toBe(WHALE);
    expect(await page.getByTestId('hot-key-sticky-0').textContent()).toMatch(/127\.0\.0\.1:\d+/);
    // The bar chart is drawn: one bar per key, the whale's in the warning colour, and the alert line.
    const panel = page.getByTestId('hot-keys-panel');
    await expect.poll(() => panel.locator('.recharts-bar-rectangle').count(), { timeout: 30_000 }).toBeGreaterThan(2);
    expect(await panel.locator('.recharts-reference-line').count()).toBeGreaterThanOrEqual(1);
    expect(await panel.locator('.recharts-bar-rectangle path[fill="var(--warning)"]').count()).toBeGreaterThanOrEqual(1);
    // The admin API says the same (operator and above see the keys).
    const api = await adminQuery<{ hashed: boolean; state: { keys: Array<{ key: string; share: number }> }; sticky: { keys: Array<{ key: string }> } | null }>(p, 'state.hotKeys', { keyspace: 'cart' });
    expect(api.hashed).toBe(false);
    expect(api.state.keys[0]!.key).toBe(`cart/${WHALE}`);
    expect(api.state.keys[0]!.share).toBeGreaterThan(0.2);
    expect(api.sticky!.keys[0]!.key).toBe(WHALE);
    await screenshot(page, 'hot-keys-panel');
    expect(await criticalViolations(page)).toEqual([]);
  });

  it('the overview raises the hot-key alert, and its link opens the panel', async () => {
    await goto(page, p.consoleUrl);
    const alert = page.locator('[data-testid="alert"][data-kind="hot-key"]', { hasText: 'keyspace default/cart' });
    await alert.first().waitFor({ timeout: 60_000 });
    expect(await alert.first().textContent()).toContain(`key cart/${WHALE} takes`);
    await screenshot(page, 'hot-keys-alert');
    expect(await criticalViolations(page)).toEqual([]);
    await alert.first().getByRole('link', { name: 'Look' }).click();
    await page.waitForURL(/\/state\/default\?keyspace=cart#hot-keys$/);
    await page.getByTestId('hot-key-state-key-0').waitFor({ timeout: 30_000 });
  });

  it('a viewer sees keyed hashes instead of the session ids, in the panel and in the alert', async () => {
    const ctx = await browser.newContext({ viewport: { width: 1400, height: 900 } });
    const v = await ctx.newPage();
    try {
      await logIn(v, p.consoleUrl, p.viewer);
      await goto(v, `${p.consoleUrl}/state/default?keyspace=cart`);
      await v.getByTestId('hot-keys-hashed').waitFor({ timeout: 30_000 });
      await expect.poll(() => text('hot-key-state-key-0', v), { timeout: 60_000 }).toMatch(/^h:[0-9a-f]{16}$/);
      expect(await text('hot-key-sticky-key-0', v)).toMatch(/^h:[0-9a-f]{16}$/);
      // The same key keeps its id from one poll to the next.
      const id = await text('hot-key-state-key-0', v);
      await v.waitForTimeout(2_500);
      expect(await text('hot-key-state-key-0', v)).toBe(id);
      expect(await v.getByTestId('hot-keys-panel').textContent()).not.toContain(WHALE);
      await screenshot(v, 'hot-keys-panel-viewer');
      await goto(v, p.consoleUrl);
      const alert = v.locator('[data-testid="alert"][data-kind="hot-key"]', { hasText: 'keyspace default/cart' });
      await alert.first().waitFor({ timeout: 60_000 });
      expect(await alert.first().textContent()).toContain(`key ${id} takes`);
      expect((await v.locator('[data-testid="alert"]').allTextContents()).join('\n')).not.toContain(WHALE);
      expect((await v.content()).includes(WHALE)).toBe(false);
    } finally {
      await ctx.close();
    }
    // The load was served throughout.
    expect(outcomes.error ?? 0, JSON.stringify(outcomes)).toBe(0);
  });
});
