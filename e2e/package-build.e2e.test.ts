/**
 * The function page's build panel (#build) for package sources against the local platform: two
 * folders are packed (@orrery/builder's packFolder, as `orrery deploy --code` does) and uploaded
 * to the operator's `PUT /v1/packages/<ns>/<sha256>` with the admin token. One has a vendored
 * `file:` dependency: its panel shows Succeeded in green with the dependency count and size the
 * operator reported, and the Function answers through a router using the dependency. The other
 * names a dependency that cannot be installed offline: its panel shows Failed in red with the
 * reason, npm's message and the log's tail open. A viewer sees the same panel, whose only control
 * is the harmless copy button. Every state passes axe. What the file creates it removes.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Browser, Locator, Page } from 'playwright-core';
import { packFolder } from '@orrery/builder';
import { writeNodePackage } from '@orrery/builder/testing';
import type { BuildStatus, OrreryFunction } from '@orrery/spec';
import { adminMutation, adminQuery } from './admin-api.ts';
import { adminPage, criticalViolations, goto, launchChromium, logIn, screenshot } from './browser.ts';

const p = inject('platform');
const PADDER = 'e2e-build-padder';
const BROKEN = 'e2e-build-broken';
let browser: Browser;
let page: Page;
let dir = '';
const sha = { padder: '', broken: '' };

/** Packs a folder and puts it on the operator with the admin token (201 new, 200 already stored). */
async function upload(folder: string): Promise<string> {
  const { archive, sha256 } = await packFolder(folder);
  const res = await fetch(`${p.operatorUrl}/v1/packages/default/${sha256}`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${p.adminToken}`, 'content-type': 'application/octet-stream' },
    body: new Uint8Array(archive),
    signal: AbortSignal.timeout(30_000),
  });
  if (res.status !== 201 && res.status !== 200) throw new Error(`uploading ${folder} answered ${res.status}: ${await res.text()}`);
  return sha256;
}

/** A Function running the uploaded package on a worker of its own (executor deploy), kept warm so the router call needs no cold start. */
function applyPackageFunction(name: string, sha256: string): Promise<unknown> {
  const manifest = {
    apiVersion: 'orrery.dev/v1alpha1',
    kind: 'Function',
    metadata: { name, namespace: 'default' },
    spec: { template: { environment: 'nodejs', executor: 'deploy', autoscaling: { minScale: 1, maxScale: 1 }, source: { package: { sha256 } } } },
  };
  return adminMutation(p, 'functions.applyManifest', { manifest });
}

/** The build the operator reported, once it is in `phase`. */
async function buildIn(name: string, phase: BuildStatus['phase']): Promise<BuildStatus> {
  let build: BuildStatus | undefined;
  await expect
    .poll(async () => (build = (await adminQuery<OrreryFunction>(p, 'functions.get', { namespace: 'default', name })).status?.build)?.phase, { timeout: 45_000, interval: 500 })
    .toBe(phase);
  return build!;
}

/** Opens a function's page at #build and waits until the panel shows `phase` (the page refreshes itself). */
async function openBuild(on: Page, name: string, phase: BuildStatus['phase']): Promise<Locator> {
  await goto(on, `${p.consoleUrl}/functions/default/${name}#build`);
  const panel = on.locator('#build');
  await panel.waitFor({ timeout: 30_000 });
  await expect.poll(() => panel.getAttribute('data-phase'), { timeout: 30_000 }).toBe(phase);
  return panel;
}

/** The badge's painted colour and the colour the theme variable resolves to, side by side. */
function paintedAndTheme(badge: Locator, variable: string): Promise<[string, string]> {
  return badge.evaluate((el, v) => {
    const probe = document.createElement('span');
    probe.style.color = `var(${v})`;
    el.parentElement!.appendChild(probe);
    const theme = getComputedStyle(probe).color;
    probe.remove();
    return [getComputedStyle(el).color, theme] as [string, string];
  }, variable);
}

beforeAll(async () => {
  // Logged in before the two builds start: their npm runs load the machine, and the login's
  // first page compile then once took over its 30 s (a CI run on a busy machine).
  browser = await launchChromium();
  page = await adminPage(browser, p.consoleUrl, p.adminToken);
  dir = await mkdtemp(join(tmpdir(), 'orrery-e2e-packages-'));
  // The builder's fixture: handler.mjs imports left-pad from vendor/left-pad-1.0.0.tgz (file:), so npm needs no network.
  await writeNodePackage(join(dir, 'padder'));
  // A dependency npm cannot get offline: a file: tarball that is not in the archive.
  await writeNodePackage(join(dir, 'broken'), { 'package.json': JSON.stringify({ name: 'broken', version: '1.0.0', main: 'handler.mjs', dependencies: { nope: 'file:vendor/nope-9.9.9.tgz' } }) });
  sha.padder = await upload(join(dir, 'padder'));
  sha.broken = await upload(join(dir, 'broken'));
  // Both applied before any test waits, so the two builds run side by side.
  await applyPackageFunction(PADDER, sha.padder);
  await applyPackageFunction(BROKEN, sha.broken);
});
afterAll(async () => {
  await browser?.close();
  for (const name of [PADDER, BROKEN]) await adminMutation(p, 'functions.delete', { namespace: 'default', name }).catch(() => undefined);
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('function page: the package build panel', () => {
  it('a package with a vendored dependency: Succeeded in green with its dependencies and size, and it answers through a router', async () => {
    const build = await buildIn(PADDER, 'Succeeded');
    expect(build).toMatchObject({ sha256: sha.padder, reason: 'Built', dependencies: 1 });
    expect(build.sizeBytes).toBeGreaterThan(0);

    const panel = await openBuild(page, PADDER, 'Succeeded');
    const badge = page.getByTestId('build-phase');
    expect(await badge.textContent()).toBe('● Succeeded');
    const [painted, healthy] = await paintedAndTheme(badge, '--healthy');
    expect(painted).toBe(healthy);
    expect(await page.getByTestId('build-reason').textContent()).toBe('Built');
    expect(await page.getByTestId('build-dependencies').textContent()).toBe('1');
    // The size as people read it, with the operator's exact byte count on hover.
    const size = page.getByTestId('build-size').locator('span');
    expect(await size.textContent()).toMatch(/^\d+(\.\d+)? (B|KiB|MiB)$/);
    expect(await size.getAttribute('title')).toBe(`${build.sizeBytes} bytes`);
    expect(await page.getByTestId('build-sha256').textContent()).toBe(sha.padder.slice(0, 12));
    expect(await page.getByTestId('build-sha256').getAttribute('title')).toBe(sha.padder);
    // innerText: the bar's <title> (its scale) is a tooltip, not text on screen.
    expect(await page.getByTestId('build-duration').innerText()).toMatch(/^took \d+(\.\d)? (ms|s)$/);
    expect(await page.getByTestId('build-stale').count()).toBe(0);
    // A good build keeps its log folded away.
    expect(await panel.locator('details').getAttribute('open')).toBeNull();
    expect(await page.getByTestId('build-log').isVisible()).toBe(false);
    expect(await panel.getAttribute('class')).not.toMatch(/buildFailed/);
    await screenshot(page, 'function-build-succeeded');
    expect(await criticalViolations(page)).toEqual([]);

    // handler.mjs answers leftPad('7', 3, '0') from the built package's node_modules.
    await expect
      .poll(
        async () => {
          const res = await fetch(`${p.routerUrls[0]}/default/${PADDER}/`, { signal: AbortSignal.timeout(15_000) }).catch(() => undefined);
          return res ? `${res.status} ${await res.text()}` : 'no answer';
        },
        { timeout: 45_000, interval: 500 },
      )
      .toBe('200 007');
  });

  it("a dependency that cannot be installed offline: Failed in red with the reason, npm's message and the log open", async () => {
    const build = await buildIn(BROKEN, 'Failed');
    expect(build).toMatchObject({ sha256: sha.broken, reason: 'DependenciesFailed', message: expect.stringMatching(/npm exited/) });

    const panel = await openBuild(page, BROKEN, 'Failed');
    const badge = page.getByTestId('build-phase');
    expect(await badge.textContent()).toBe('✕ Failed');
    const [painted, degraded] = await paintedAndTheme(badge, '--degraded');
    expect(painted).toBe(degraded);
    // The whole card is marked down its left edge in the same red.
    expect(await panel.evaluate((el) => [getComputedStyle(el).borderLeftWidth, getComputedStyle(el).borderLeftColor])).toEqual(['4px', degraded]);
    expect(await page.getByTestId('build-reason').textContent()).toBe('DependenciesFailed');
    const message = page.getByTestId('build-message');
    expect(await message.textContent()).toBe(build.message);
    expect(await message.getAttribute('class')).toBe('error');
    expect(await page.getByTestId('build-dependencies').textContent()).toBe('—');
    expect(await page.getByTestId('build-size').textContent()).toBe('—');
    // The log's tail is open without a click, and says which dependency npm could not get.
    const log = page.getByTestId('build-log');
    expect(await log.isVisible()).toBe(true);
    expect(await log.textContent()).toMatch(/nope|ENOENT/);
    expect((await log.textContent())!.trim()).toBe(build.log!.trim());
    await screenshot(page, 'function-build-failed');
    expect(await criticalViolations(page)).toEqual([]);

    // No worker for a failed build: the Function is not Ready, for the build's reason.
    const fn = await adminQuery<OrreryFunction>(p, 'functions.get', { namespace: 'default', name: BROKEN });
    expect(fn.status?.conditions?.find((c) => c.type === 'Ready')).toMatchObject({ status: 'False', reason: 'BuildFailed', message: expect.stringContaining('DependenciesFailed') });
  });

  it('a viewer sees both panels; their only control is the copy button', async () => {
    const ctx = await browser.newContext();
    try {
      const v = await ctx.newPage();
      await logIn(v, p.consoleUrl, p.viewer);
      expect(await v.getByTestId('role').textContent()).toBe('viewer');
      for (const [name, phase, badge] of [[PADDER, 'Succeeded', '● Succeeded'], [BROKEN, 'Failed', '✕ Failed']] as const) {
        const panel = await openBuild(v, name, phase);
        expect(await v.getByTestId('build-phase').textContent()).toBe(badge);
        // Copying the sha256 changes nothing, so a viewer keeps it; the panel offers nothing else to press.
        const controls = await panel.locator('button, a[href], input, select, textarea').evaluateAll((els) => els.map((e) => e.getAttribute('data-testid') ?? e.outerHTML.slice(0, 80)));
        expect(controls).toEqual(['build-sha256-copy']);
      }
      await screenshot(v, 'function-build-failed-viewer');
      expect(await criticalViolations(v)).toEqual([]);
    } finally {
      await ctx.close();
    }
  });
});
