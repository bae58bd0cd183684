/**
 * The console in Chromium against a real local platform (operator + admin API, statesvc, etcd
 * registry clusters, two routers, workers): every page shows live data and every action goes
 * from a click to its effect. Screenshots land in e2e/artifacts/; each page passes axe-core
 * without critical violations.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { readMasterKeyFile, signAdminUrl } from '@orrery/auth';
import { criticalViolations, goto, launchChromium, logIn, screenshot } from './browser.ts';

const p = inject('platform');
const router = p.routerUrls[0]!;
let browser: Browser;
let admin: BrowserContext;
let page: Page;

beforeAll(async () => {
  browser = await launchChromium();
  admin = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  page = await admin.newPage();
});
afterAll(async () => {
  await browser?.close();
});

/** Text of a test id, once it is present. */
async function text(testId: string, timeout = 30_000): Promise<string> {
  const l = page.getByTestId(testId).first();
  await l.waitFor({ timeout });
  return (await l.textContent()) ?? '';
}
const firstNumber = (s: string): number => Number(/-?\d[\d,]*/.exec(s)?.[0]?.replaceAll(',', '') ?? NaN);

async function canaryVersions(n: number): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  let next = 0;
  // A few requests in flight at once: enough samples for a tight bound without a slow test.
  const lane = async () => {
    while (next < n) {
      next++;
      const res = await fetch(`${router}/default/canary/`, { signal: AbortSignal.timeout(30_000) });
      const body = (await res.json()) as { version?: string };
      const v = res.status === 200 ? (body.version ?? '?') : `status-${res.status}`;
      counts[v] = (counts[v] ?? 0) + 1;
    }
  };
  await Promise.all(Array.from({ length: Math.min(8, n) }, lane));
  return counts;
}

async function canaryTraffic(): Promise<Array<{ revisionName?: string; percent?: number }>> {
  const res = await fetch(`${p.operatorUrl}/trpc/functions.get?input=${encodeURIComponent(JSON.stringify({ name: 'canary' }))}`, { headers: { authorization: `Bearer ${p.adminToken}` } });
  const body = (await res.json()) as { result: { data: { status?: { traffic?: Array<{ revisionName?: string; percent?: number }> } } } };
  return body.result.data.status?.traffic ?? [];
}

describe('console', () => {
  it('logs in with the admin token', async () => {
    await goto(page, p.consoleUrl);
    await page.waitForURL(/\/login/);
    await screenshot(page, 'login');
    expect(await criticalViolations(page)).toEqual([]);
    await logIn(page, p.consoleUrl, { token: p.adminToken });
    expect(await text('role')).toBe('admin');
  });

  it("the state page's numbers equal statesvc's admin usage", async () => {
    for (const key of ['e2e-a', 'e2e-b', 'e2e-c']) {
      const r = await fetch(`${router}/default/counter/?key=${key}`, { method: 'POST', signal: AbortSignal.timeout(60_000) });
      expect(r.status).toBe(200);
    }
    const masterKey = readMasterKeyFile(p.masterKeyFile);
    const usage = async () => {
      const path = signAdminUrl(masterKey, 'GET', '/v1/admin/usage?scope-namespace=default&scope-keyspace=counter', Date.now() / 1000 + 60);
      return (await (await fetch(new URL(path, p.statesvcUrl))).json()) as { keys: number; bytes: number };
    };
    const truth = await usage();
    expect(truth.keys).toBeGreaterThanOrEqual(3);
    await goto(page, `${p.consoleUrl}/state`);
    await expect.poll(async () => firstNumber(await text('keyspace-keys-default-counter')), { timeout: 20_000 }).toBe(truth.keys);
    expect(firstNumber(await text('keyspace-bytes-default-counter'))).toBe(truth.bytes);
    const ns = (await (await fetch(new URL(signAdminUrl(masterKey, 'GET', '/v1/admin/namespaces', Date.now() / 1000 + 60), p.statesvcUrl))).json()) as { namespaces: Array<{ namespace: string; keys: number; bytes: number }> };
    const def = ns.namespaces.find((n) => n.namespace === 'default')!;
    expect(firstNumber(await text('namespace-keys-default'))).toBe(def.keys);
    expect(firstNumber(await text('namespace-bytes-default'))).toBe(def.bytes);
    await screenshot(page, 'state');
    expect(await criticalViolations(page)).toEqual([]);
  });

  it('edits the canary split to 50/50 and the router follows within ±5 %, then rolls back', async () => {
    await goto(page, `${p.consoleUrl}/functions/default/canary`);
    await page.getByTestId('traffic-input-canary-00001').fill('50');
    await page.getByTestId('traffic-input-latest').fill('50'); // the canary entry follows the latest revision
    await page.getByTestId('traffic-apply').click();
    await screenshot(page, 'function-traffic-diff');
    await page.getByTestId('confirm-action').click();
    await expect
      .poll(async () => (await canaryTraffic()).map((t) => `${t.revisionName}=${t.percent}`).sort().join(','), { timeout: 30_000 })
      .toBe('canary-00001=50,canary-00002=50');
    // The routers read the store's watch: give them a moment, then count.
    await expect.poll(async () => (await canaryVersions(40)).v2 ?? 0, { timeout: 30_000 }).toBeGreaterThan(10);
    // 2000 samples: the ±5 % bound is 4.5 standard deviations of a fair 50/50 split, so chance alone never fails it.
    const samples = 2000;
    const counts = await canaryVersions(samples);
    const v1 = (counts.v1 ?? 0) / samples;
    expect((counts.v1 ?? 0) + (counts.v2 ?? 0), JSON.stringify(counts)).toBe(samples);
    expect(v1, JSON.stringify(counts)).toBeGreaterThanOrEqual(0.45);
    expect(v1, JSON.stringify(counts)).toBeLessThanOrEqual(0.55);
    // Both revisions served traffic, so both appear in the per-revision load table.
    await page.getByTestId('revision-load-canary-00002').waitFor({ timeout: 10_000 });
    await page.getByTestId('revision-load-canary-00001').waitFor({ timeout: 10_000 });
    await screenshot(page, 'function-detail');
    expect(await criticalViolations(page)).toEqual([]);

    await page.getByTestId('rollback-canary-00001').click();
    await page.getByTestId('confirm-action').click();
    await expect.poll(async () => (await canaryTraffic()).map((t) => `${t.revisionName}=${t.percent}`).join(','), { timeout: 30_000 }).toBe('canary-00001=100');
    await expect.poll(async () => Object.keys(await canaryVersions(30)).join(','), { timeout: 30_000 }).toBe('v1');
  });

  it('registry: add learner → promote → transfer leadership → remove, with live progress', async () => {
    await goto(page, `${p.consoleUrl}/registry/default/registry`);
    // The example cluster bootstraps 3 members.
    for (const n of [1, 2, 3]) await expect.poll(async () => text(`member-role-registry-${n}`, 120_000), { timeout: 120_000 }).toBe('voter');
    await screenshot(page, 'registry-cluster');
    expect(await criticalViolations(page)).toEqual([]);

    await page.getByTestId('add-learner').click();
    await page.getByTestId('confirm-action').click();
    await expect.poll(async () => text('request-progress'), { timeout: 60_000 }).toMatch(/succeeded/);
    await expect.poll(async () => text('member-role-registry-4', 60_000), { timeout: 60_000 }).toBe('learner');
    await screenshot(page, 'registry-learner');

    const promote = page.getByTestId('promote-registry-4');
    await expect.poll(async () => promote.isEnabled(), { timeout: 60_000 }).toBe(true);
    await promote.click();
    await page.getByTestId('confirm-action').click();
    await expect.poll(async () => text('request-progress'), { timeout: 60_000 }).toMatch(/succeeded/);
    await expect.poll(async () => text('member-role-registry-4'), { timeout: 60_000 }).toBe('voter');

    const leaderBefore = await text('leader-badge');
    expect(leaderBefore).not.toContain('registry-4');
    await page.getByTestId('transfer-registry-4').click();
    await page.getByTestId('confirm-action').click();
    await expect.poll(async () => text('request-progress'), { timeout: 60_000 }).toMatch(/succeeded/);
    await expect.poll(async () => text('leader-badge'), { timeout: 60_000 }).toContain('registry-4');
    await screenshot(page, 'registry-leader-moved');

    await page.getByTestId('remove-registry-4').click();
    await page.getByTestId('confirm-action').click();
    await expect.poll(async () => text('request-progress'), { timeout: 60_000 }).toMatch(/succeeded/);
    await expect.poll(async () => page.getByTestId('member-registry-4').count(), { timeout: 60_000 }).toBe(0);
    await expect.poll(async () => (await text('leader-badge')).includes('registry-4'), { timeout: 60_000 }).toBe(false);
  });

  it('the sticky page shows a teleport after the owning worker is killed', async () => {
    const sessions = Array.from({ length: 12 }, (_, i) => `e2e-session-${i}`);
    const owners = new Map<string, number>();
    for (const s of sessions) {
      const r = await fetch(`${router}/default/cart/`, { method: 'POST', headers: { 'x-session-id': s, 'content-type': 'application/json' }, body: JSON.stringify({ item: 'apple', qty: 1 }), signal: AbortSignal.timeout(60_000) });
      expect(r.status).toBe(200);
      owners.set(s, ((await r.json()) as { worker: { pid: number } }).worker.pid);
    }
    await goto(page, `${p.consoleUrl}/sticky`);
    const before = firstNumber(await text('sticky-teleports-default-cart'));
    const victim = owners.get(sessions[0]!)!;
    process.kill(victim, 'SIGKILL');
    // Requests for the victim's sessions now land elsewhere: a teleport per moved bucket.
    await expect
      .poll(
        async () => {
          for (const s of sessions) await fetch(`${router}/default/cart/`, { headers: { 'x-session-id': s }, signal: AbortSignal.timeout(30_000) }).then((r) => r.arrayBuffer());
          return firstNumber(await text('sticky-teleports-default-cart'));
        },
        { timeout: 60_000, interval: 2_000 },
      )
      .toBeGreaterThan(before);
    await screenshot(page, 'sticky');
    expect(await criticalViolations(page)).toEqual([]);
  });

  it('the audit log lists each action', async () => {
    await goto(page, `${p.consoleUrl}/audit`);
    await page.getByTestId('audit-row').first().waitFor({ timeout: 30_000 });
    await expect
      .poll(async () => (await page.getByTestId('audit-row').allTextContents()).join('\n'), { timeout: 20_000 })
      .toSatisfy((rows: string) =>
        ['auth.login', 'functions.traffic.set', 'functions.rollback', 'registry.addLearner', 'registry.promote', 'registry.transferLeader', 'registry.remove'].every((a) => rows.includes(a)),
      );
    await screenshot(page, 'audit');
    expect(await criticalViolations(page)).toEqual([]);
  });

  it('every other page renders live data, passes axe, and is screenshotted', async () => {
    const pages: Array<[string, string, string]> = [
      ['overview', '/', '[data-testid="health-statesvc"][data-health="Healthy"]'],
      ['functions', '/functions', '[data-testid="function-row-canary"]'],
      ['registry', '/registry', '[data-testid="cluster-default-registry"]'],
      ['statesync', '/statesync', '[data-testid^="statesync-replica-"]'],
      ['state-namespace', '/state/default', '[data-testid="ns-keyspace-counter"]'],
    ];
    for (const [name, path, selector] of pages) {
      await goto(page, `${p.consoleUrl}${path}`);
      await page.locator(selector).first().waitFor({ timeout: 30_000 });
      await screenshot(page, name);
      expect(await criticalViolations(page), name).toEqual([]);
    }
    // Dark mode: the toggle flips the theme and the page stays readable to axe.
    await page.getByRole('button', { name: /switch to (dark|light) mode/ }).click();
    await screenshot(page, 'statesync-toggled-theme');
    expect(await criticalViolations(page)).toEqual([]);
  });

  it('deep links open the object they name', async () => {
    // The keyspace shown on a namespace's state page is in the URL, both ways.
    await goto(page, `${p.consoleUrl}/state/default?keyspace=cart`);
    await page.getByTestId('history-keyspace').waitFor({ timeout: 30_000 });
    expect(await page.getByTestId('history-keyspace').inputValue()).toBe('cart');
    await page.getByTestId('history-keyspace').selectOption('counter');
    await page.waitForURL(/\/state\/default\?keyspace=counter$/);
    // A sticky row opens the function's sticky panel.
    await goto(page, `${p.consoleUrl}/sticky`);
    await page.getByRole('link', { name: 'default/cart', exact: true }).click();
    await page.waitForURL(/\/functions\/default\/cart#sticky$/);
    await page.locator('#sticky').waitFor({ timeout: 30_000 });
    // A StateSync has its own page.
    await goto(page, `${p.consoleUrl}/statesync`);
    await page.getByRole('link', { name: 'default/router', exact: true }).click();
    await page.waitForURL(/\/statesync\/default\/router$/);
    await page.locator('[data-testid^="statesync-replica-"]').first().waitFor({ timeout: 30_000 });
    await screenshot(page, 'statesync-detail');
    expect(await criticalViolations(page)).toEqual([]);
  });

  it('a viewer sees actions disabled and the API answers 403', async () => {
    const ctx = await browser.newContext();
    const v = await ctx.newPage();
    try {
      await logIn(v, p.consoleUrl, p.viewer);
      expect(await v.getByTestId('role').textContent()).toBe('viewer');
      await goto(v, `${p.consoleUrl}/functions/default/canary`);
      await v.getByTestId('rollback-canary-00002').waitFor();
      await expect.poll(() => v.getByTestId('rollback-canary-00002').isDisabled()).toBe(true);
      expect(await v.getByTestId('traffic-apply').isDisabled()).toBe(true);
      await goto(v, `${p.consoleUrl}/registry/default/registry`);
      await v.getByTestId('add-learner').waitFor();
      expect(await v.getByTestId('add-learner').isDisabled()).toBe(true);
      await screenshot(v, 'viewer-registry');
      const res = await v.request.post(`${p.consoleUrl}/trpc/functions.rollback`, { data: { name: 'canary', revision: 'canary-00002' } });
      expect(res.status()).toBe(403);
      expect(((await res.json()) as { error: { data: { code: string } } }).error.data.code).toBe('FORBIDDEN');
    } finally {
      await ctx.close();
    }
  });
});
