/**
 * Tags in the traffic split editor: add one to a revision, rename it, remove it — each saved
 * through the confirmation, then checked in the admin API, in the router (`Orrery-Tag` reaches
 * the revision; an unknown tag is 404 `unknown_tag`) and in the editor after a reload. Uses the
 * counter example (console.e2e.test.ts owns the canary's split) and leaves it without tags.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import type { OrreryFunction } from '@orrery/spec';
import { adminQuery } from './admin-api.ts';
import { adminPage, criticalViolations, goto, launchChromium, screenshot } from './browser.ts';

const p = inject('platform');
const router = p.routerUrls[0]!;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  browser = await launchChromium();
  page = await adminPage(browser, p.consoleUrl, p.adminToken);
});
afterAll(async () => {
  await browser?.close();
});

const counter = () => adminQuery<OrreryFunction>(p, 'functions.get', { namespace: 'default', name: 'counter' });

/** `revision#tag` of every tagged target in the counter's spec. */
async function specTags(): Promise<string[]> {
  return (await counter()).spec.traffic.filter((t) => t.tag).map((t) => `${t.revisionName ?? 'latest'}#${t.tag}`);
}

/** The router's status for a GET to the counter with `Orrery-Tag: tag` (and its error code when not 200). */
async function routedByTag(tag: string): Promise<string> {
  const res = await fetch(`${router}/default/counter/?key=e2e-tags`, { headers: { 'orrery-tag': tag }, signal: AbortSignal.timeout(60_000) });
  const body = (await res.json().catch(() => ({}))) as { code?: string };
  return res.status === 200 ? '200' : `${res.status} ${body.code ?? ''}`.trim();
}

/** Types the tag for `revision`, applies, checks the confirmation's diff (`now → after` of the one changed row), and confirms. */
async function saveTag(revision: string, tag: string, diff: string): Promise<void> {
  await goto(page, `${p.consoleUrl}/functions/default/counter`);
  const input = page.getByTestId(`traffic-tag-${revision}`);
  await input.waitFor({ timeout: 30_000 });
  await input.fill(tag);
  await page.getByTestId('traffic-apply').click();
  const changed = page.locator('[data-testid="traffic-diff-row"][data-changed="true"]');
  const shown = () => changed.evaluateAll((rows) => rows.map((r) => [...r.querySelectorAll('th, td')].slice(0, 3).map((c) => c.textContent).join(' | ')));
  await expect.poll(shown).toEqual([`${revision} | ${diff.replace(' → ', ' | ')}`]);
  await page.getByTestId('confirm-action').click();
  await page.getByTestId('traffic-applied').waitFor({ timeout: 30_000 });
}

/** The tag input's value after a fresh load of the page (the editor shows the saved split). */
async function tagShownAfterReload(revision: string): Promise<string> {
  await goto(page, `${p.consoleUrl}/functions/default/counter`);
  const input = page.getByTestId(`traffic-tag-${revision}`);
  await input.waitFor({ timeout: 30_000 });
  return input.inputValue();
}

describe('traffic split editor: tags', () => {
  it('adds, renames and removes a tag on a revision; the API, the router and the page follow', async () => {
    const revision = (await counter()).status?.latestReadyRevision;
    expect(revision, 'the counter example has a ready revision').toMatch(/^counter-\d+$/);
    expect(await specTags()).toEqual([]);
    expect(await routedByTag('e2e-blue')).toBe('404 unknown_tag');

    await saveTag(revision!, 'e2e-blue', '0 % → 0 % #e2e-blue');
    await expect.poll(specTags, { timeout: 30_000 }).toEqual([`${revision}#e2e-blue`]);
    await expect.poll(() => routedByTag('e2e-blue'), { timeout: 30_000 }).toBe('200');
    expect(await tagShownAfterReload(revision!)).toBe('e2e-blue');
    await screenshot(page, 'traffic-tag-added');
    expect(await criticalViolations(page)).toEqual([]);

    await saveTag(revision!, 'e2e-green', '0 % #e2e-blue → 0 % #e2e-green');
    await expect.poll(specTags, { timeout: 30_000 }).toEqual([`${revision}#e2e-green`]);
    await expect.poll(() => routedByTag('e2e-green'), { timeout: 30_000 }).toBe('200');
    await expect.poll(() => routedByTag('e2e-blue'), { timeout: 30_000 }).toBe('404 unknown_tag');
    expect(await tagShownAfterReload(revision!)).toBe('e2e-green');

    await saveTag(revision!, '', '0 % #e2e-green → 0 %');
    await expect.poll(specTags, { timeout: 30_000 }).toEqual([]);
    await expect.poll(() => routedByTag('e2e-green'), { timeout: 30_000 }).toBe('404 unknown_tag');
    expect(await tagShownAfterReload(revision!)).toBe('');
  });
});
