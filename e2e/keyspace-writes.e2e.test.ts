/**
 * The keyspace writes panel end to end on the local platform (issue 22: the change feed,
 * idempotent writes and fences "show in the console"): the counter example is watched (an open
 * change stream through the router) and incremented (its SDK sends an Idempotency-Key with every
 * write); two SDK clients of the counter keyspace with fencing on play a key's old and new owner,
 * so the old one's late write is refused; one idempotent write is retried and another reuses its
 * key for a different request. The panel must show the feed strip with the new changes, the open
 * stream, the replay, the mismatch, the fence and the refusal — and a viewer sees hashes only.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { deriveStateToken, readMasterKeyFile } from '@orrery/auth';
import { createStateClient, FencedError, StateError } from '@orrery/sdk';
import { adminQuery } from './admin-api.ts';
import { adminPage, criticalViolations, goto, launchChromium, logIn, screenshot } from './browser.ts';

const p = inject('platform');
const KEY = `e2e-writes-${process.pid}`;
const FENCED_KEY = `e2e-fenced-${process.pid}`;
let browser: Browser;
let page: Page;
let dir: string;
const watch = new AbortController();

interface Writes {
  hashed: boolean;
  changes: { head: number; openStreams: number; recent: Array<{ key: string; op: string }> };
  idempotency: { records: number; replayed: number; mismatched: number };
  fences: { keys: number; newest: Array<{ key: string }>; claimed: number; refused: number };
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'orrery-e2e-writes-'));
  const tokenPath = join(dir, 'counter.token');
  const masterKey = readMasterKeyFile(p.masterKeyFile);
  writeFileSync(tokenPath, JSON.stringify({ namespace: 'default', keyspace: 'counter', token: deriveStateToken(masterKey, 'default', 'counter') }), { mode: 0o600 });

  // A watcher of the counter through the router: one change stream open on statesvc.
  const watching = await fetch(`${p.routerUrls[0]}/default/counter/?key=${KEY}&watch`, { signal: watch.signal });
  expect(watching.status).toBe(200);
  void watching.body?.pipeTo(new WritableStream()).catch(() => {});
  for (let i = 1; i <= 5; i++) {
    const res = await fetch(`${p.routerUrls[i % p.routerUrls.length]}/default/counter/?key=${KEY}`, { method: 'POST' });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { count: number }).count).toBe(i);
  }

  // The old and the new owner of one key: the new one's first write claims the key.
  const oldOwner = createStateClient({ url: p.statesvcUrl, tokenPath, fencing: true });
  const newOwner = createStateClient({ url: p.statesvcUrl, tokenPath, fencing: true });
  await oldOwner.set(FENCED_KEY, { owner: 'old' });
  await newOwner.set(FENCED_KEY, { owner: 'new' });
  const late = await oldOwner.set(FENCED_KEY, { owner: 'old, late' }).then(() => 'written', (e: unknown) => e);
  expect(late).toBeInstanceOf(FencedError);
  expect((await newOwner.get(FENCED_KEY))?.value).toEqual({ owner: 'new' });

  // An idempotent write sent twice (answered from its stored outcome), then its key reused.
  const client = createStateClient({ url: p.statesvcUrl, tokenPath });
  const first = await client.set(`${KEY}-order`, 1, { idempotencyKey: `${KEY}-order-1` });
  expect(await client.set(`${KEY}-order`, 1, { idempotencyKey: `${KEY}-order-1` })).toEqual(first);
  const mismatch = await client.set(`${KEY}-order`, 2, { idempotencyKey: `${KEY}-order-1` }).then(() => 'written', (e: unknown) => e);
  expect((mismatch as StateError).code).toBe('idempotency_mismatch');

  browser = await launchChromium();
  page = await adminPage(browser, p.consoleUrl, p.adminToken);
});
afterAll(async () => {
  watch.abort();
  await browser?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function text(testId: string, on: Page = page): Promise<string> {
  const l = on.getByTestId(testId).first();
  await l.waitFor({ timeout: 30_000 });
  return (await l.textContent()) ?? '';
}

describe('keyspace writes panel', () => {
  it('the admin API reports the feed, the outcomes and the fences of the counter keyspace', async () => {
    const w = await adminQuery<Writes>(p, 'state.keyspaceWrites', { keyspace: 'counter' });
    expect(w.hashed).toBe(false);
    expect(w.changes.head).toBeGreaterThanOrEqual(8);
    expect(w.changes.openStreams).toBeGreaterThanOrEqual(1);
    expect(w.changes.recent.map((c) => c.key)).toEqual(expect.arrayContaining([KEY, FENCED_KEY, `${KEY}-order`]));
    expect(w.idempotency.records).toBeGreaterThanOrEqual(6);
    expect(w.idempotency.replayed).toBeGreaterThanOrEqual(1);
    expect(w.idempotency.mismatched).toBeGreaterThanOrEqual(1);
    expect(w.fences.newest.map((f) => f.key)).toContain(FENCED_KEY);
    expect(w.fences.claimed).toBeGreaterThanOrEqual(2);
    expect(w.fences.refused).toBeGreaterThanOrEqual(1);
  });

  it('the panel draws the feed strip and lists the newest changes, the open stream, the replay, the mismatch, the fence and the refusal', async () => {
    await goto(page, `${p.consoleUrl}/state/default?keyspace=counter`);
    await page.getByTestId('keyspace-writes-panel').waitFor({ timeout: 30_000 });
    await expect.poll(async () => Number(await text('feed-head')), { timeout: 30_000 }).toBeGreaterThanOrEqual(8);
    expect(Number(await text('feed-streams'))).toBeGreaterThanOrEqual(1);
    const feed = page.getByTestId('feed-table');
    expect(await feed.textContent()).toContain(KEY);
    expect(await feed.textContent()).toContain(FENCED_KEY);
    // One tick per listed change on the strip, in the colour of its op.
    const rows = await feed.locator('tbody tr').count();
    expect(rows).toBeGreaterThanOrEqual(8);
    expect(await page.getByTestId('feed-strip').locator('rect[data-op]').count()).toBe(rows);
    expect(await page.getByTestId('feed-strip').getAttribute('aria-label')).toMatch(/counter's change feed over the last .*: \d+ newest changes marked \(\d+ set/);
    expect(Number(await text('idempotency-replayed'))).toBeGreaterThanOrEqual(1);
    expect(Number(await text('idempotency-mismatched'))).toBeGreaterThanOrEqual(1);
    expect(Number(await text('idempotency-records'))).toBeGreaterThanOrEqual(6);
    expect(await page.getByTestId('fence-table').textContent()).toContain(FENCED_KEY);
    expect(await text('fence-refused')).toContain('a stale owner wrote after its key moved');
    // The stored values never reach the page.
    expect(await page.getByTestId('keyspace-writes-panel').textContent()).not.toContain('old, late');
    await screenshot(page, 'keyspace-writes-panel');
    expect(await criticalViolations(page)).toEqual([]);
  });

  it('the panel follows new writes without a reload', async () => {
    const before = Number(await text('feed-head'));
    const res = await fetch(`${p.routerUrls[0]}/default/counter/?key=${KEY}`, { method: 'DELETE' });
    expect(res.status).toBe(200);
    await expect.poll(async () => Number(await text('feed-head')), { timeout: 30_000 }).toBeGreaterThan(before);
    expect(await page.getByTestId('feed-change-0').getAttribute('data-op')).toBe('delete');
    expect(await text('feed-change-key-0')).toBe(KEY);
  });

  it('a viewer sees keyed hashes instead of keys', async () => {
    const ctx = await browser.newContext({ viewport: { width: 1400, height: 900 } });
    const v = await ctx.newPage();
    try {
      await logIn(v, p.consoleUrl, p.viewer);
      await goto(v, `${p.consoleUrl}/state/default?keyspace=counter`);
      await v.getByTestId('keyspace-writes-hashed').waitFor({ timeout: 30_000 });
      await expect.poll(() => text('feed-change-key-0', v), { timeout: 30_000 }).toMatch(/^h:[0-9a-f]{16}$/);
      expect(await text('fence-key-0', v)).toMatch(/^h:[0-9a-f]{16}$/);
      const panel = (await v.getByTestId('keyspace-writes-panel').textContent()) ?? '';
      expect(panel).not.toContain(KEY);
      expect(panel).not.toContain(FENCED_KEY);
      await screenshot(v, 'keyspace-writes-panel-viewer');
    } finally {
      await ctx.close();
    }
  });
});
