/**
 * The registry page's instances browser against the platform's own registry cluster
 * (default/registry, where the examples' workers register as orrery.functions.default.<fn>.<rev>):
 * a selector or service prefix typed into the search narrows the list, a selector the registry
 * refuses shows its message, and clearing the search lists everything again.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { adminPage, criticalViolations, goto, launchChromium, screenshot } from './browser.ts';

const p = inject('platform');
let browser: Browser;
let page: Page;

beforeAll(async () => {
  browser = await launchChromium();
  page = await adminPage(browser, p.consoleUrl, p.adminToken);
});
afterAll(async () => {
  clearInterval(keepAwake);
  await browser?.close();
});

/** The function of every listed instance (from its service name), sorted, once a search has answered. */
async function listedFunctions(): Promise<string[]> {
  await page.locator('[data-testid="instances-count"], [data-testid="instances-error"]').first().waitFor({ timeout: 30_000 });
  if (await page.getByTestId('instances-error').count()) throw new Error(`the search failed: ${await page.getByTestId('instances-error').textContent()}`);
  const services = await page.locator('tr[data-service]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-service') ?? ''));
  return services.map((s) => s.split('.')[3] ?? `?${s}`).sort();
}
const distinct = (xs: string[]) => [...new Set(xs)];

async function search(field: 'instances-selector' | 'instances-service-prefix', value: string): Promise<void> {
  await page.getByTestId(field).fill(value);
  await page.getByTestId(field).press('Enter');
}

// Deploy-executor examples with workers: the cart keeps two (minScale 2); the canary scales to zero
// when idle (the specs before this one may take long enough), so the test wakes it first and
// keeps it busy while it looks.
const ALWAYS_UP = ['canary', 'cart'];
const router = p.routerUrls[0]!;
const wakeCanary = () => fetch(`${router}/default/canary/`, { signal: AbortSignal.timeout(60_000) }).then((r) => r.body?.cancel(), () => undefined);
let keepAwake: NodeJS.Timeout | undefined;

describe('registry instances browser', () => {
  it('filters by selector and service prefix, shows a refused selector, and clearing restores the list', async () => {
    await wakeCanary();
    keepAwake = setInterval(() => void wakeCanary(), 5_000);
    await goto(page, `${p.consoleUrl}/registry/default/registry`);
    await page.getByTestId('instances-search').waitFor({ timeout: 30_000 });
    // Everything in the default registry namespace: the examples' workers.
    await page.getByTestId('instances-search').click();
    await expect.poll(async () => distinct(await listedFunctions()), { timeout: 90_000, interval: 2_000 }).toEqual(expect.arrayContaining(ALWAYS_UP));

    await search('instances-selector', 'orrery.dev/function=canary');
    await expect.poll(async () => distinct(await listedFunctions()), { timeout: 30_000 }).toEqual(['canary']);
    await screenshot(page, 'registry-instances-filtered');
    expect(await criticalViolations(page)).toEqual([]);

    await search('instances-selector', 'orrery.dev/function notin (canary)');
    await expect.poll(async () => distinct(await listedFunctions()), { timeout: 30_000 }).toEqual(expect.arrayContaining(['cart']));
    expect(await listedFunctions()).not.toContain('canary');

    // A selector the registry refuses: its message inline, no list.
    await search('instances-selector', 'orrery.dev/function in (canary');
    await page.getByTestId('instances-error').waitFor({ timeout: 30_000 });
    expect(await page.getByTestId('instances-error').textContent()).toMatch(/\S/);
    expect(await page.locator('tr[data-service]').count()).toBe(0);

    // Clearing the selector lists everything again.
    await search('instances-selector', '');
    await expect.poll(async () => distinct(await listedFunctions()), { timeout: 30_000 }).toEqual(expect.arrayContaining(ALWAYS_UP));
    expect(await page.getByTestId('instances-error').count()).toBe(0);

    // The service prefix narrows the same way, and clearing it restores.
    // Whole segments: every revision of the cart.
    await search('instances-service-prefix', 'orrery.functions.default.cart');
    await expect.poll(async () => distinct(await listedFunctions()), { timeout: 30_000 }).toEqual(['cart']);
    await search('instances-service-prefix', '');
    await expect.poll(async () => distinct(await listedFunctions()), { timeout: 30_000 }).toEqual(expect.arrayContaining(ALWAYS_UP));
  });
});
