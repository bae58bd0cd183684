/**
 * The function page's triggers, domains and build panels against the local platform: the cron
 * example's schedule and next tick; a Function this file creates with a 10-second schedule gets a
 * run square after its first tick; the queue example's trigger shows whether the operator consumes
 * it; the domains example says why its host is not served (no certificate yet), a second Function
 * asking for the same host says who holds it, and once `orrery tls cert` stores a certificate the
 * host is served and the certificate bar shows the days left. A Function with an inline source
 * says it has nothing to build. Every state passes axe. What the file creates it removes.
 */
import { execFile } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import type { OrreryFunction } from '@orrery/spec';
import { adminMutation, adminQuery } from './admin-api.ts';
import { adminPage, criticalViolations, goto, launchChromium, screenshot } from './browser.ts';

const p = inject('platform');
const CLI = join(import.meta.dirname, '..', 'apps', 'cli', 'bin', 'orrery.mjs');
const HOST = 'hello.localtest.me';
const TICKER = 'e2e-ticker';
const CLAIMER = 'e2e-claimer';
let browser: Browser;
let page: Page;

beforeAll(async () => {
  browser = await launchChromium();
  page = await adminPage(browser, p.consoleUrl, p.adminToken);
});
afterAll(async () => {
  await browser?.close();
  for (const name of [TICKER, CLAIMER]) await adminMutation(p, 'functions.delete', { namespace: 'default', name }).catch(() => undefined);
  rmSync(join(p.dataDir, 'secrets', 'default', 'hello-tls'), { recursive: true, force: true });
});

/** A Function with an inline handler that answers 200, plus `spec` fields (triggers, domains). */
function applyFunction(name: string, spec: Record<string, unknown>): Promise<unknown> {
  const manifest = {
    apiVersion: 'orrery.dev/v1alpha1',
    kind: 'Function',
    metadata: { name, namespace: 'default' },
    spec: {
      template: { environment: 'nodejs', executor: 'pool', autoscaling: { minScale: 0, maxScale: 1 }, source: { inline: 'export default () => new Response("tick")' } },
      ...spec,
    },
  };
  return adminMutation(p, 'functions.applyManifest', { manifest });
}

/** Opens a function's page at a panel and waits until the panel is there. */
async function openPanel(name: string, panel: 'triggers' | 'domains' | 'build'): Promise<void> {
  await goto(page, `${p.consoleUrl}/functions/default/${name}#${panel}`);
  await page.locator(`#${panel}`).waitFor({ timeout: 30_000 });
}

const text = async (testId: string): Promise<string> => (await page.getByTestId(testId).first().textContent({ timeout: 30_000 })) ?? '';

describe('function page panels', () => {
  it("triggers: the cron example's schedule and next tick, a 10-second schedule's first run, the queue trigger's consumer", async () => {
    await openPanel('heartbeat', 'triggers');
    const row = page.getByTestId('cron-every-minute');
    expect(await row.locator('td').nth(1).textContent()).toBe('* * * * * UTC');
    // The operator reports the next tick once it follows the schedule: a time, not the dash.
    await expect.poll(() => text('cron-next-every-minute'), { timeout: 30_000 }).toMatch(/\d/);

    // Six explicit seconds: the most a schedule may fire in a minute (docs/triggers.md).
    await applyFunction(TICKER, { triggers: { cron: [{ name: 'every-10s', schedule: '0,10,20,30,40,50 * * * * *' }] } });
    await openPanel(TICKER, 'triggers');
    expect(await page.getByTestId('cron-every-10s').locator('td').nth(1).textContent()).toBe('0,10,20,30,40,50 * * * * * UTC');
    // The first tick comes within 10 s of the operator seeing the trigger; the call starts a worker.
    const succeeded = page.locator('[data-testid="cron-runs-every-10s"] rect[data-outcome="Succeeded"]').first();
    await succeeded.waitFor({ timeout: 60_000 });
    expect(await succeeded.locator('title').textContent()).toMatch(/: Succeeded \(HTTP 200\), \d+ ms$/);
    expect(await page.getByTestId('cron-runs-every-10s').getAttribute('aria-label')).toMatch(/^Last \d+ runs? of every-10s, oldest first: .*Succeeded/);
    await screenshot(page, 'function-triggers-cron');
    expect(await criticalViolations(page)).toEqual([]);

    // The queue example consumes from the platform's own nats-server when one is installed, else says NoBroker.
    const info = JSON.parse(readFileSync(join(p.dataDir, 'platform.json'), 'utf8')) as { components: Array<{ name: string; state: string }> };
    const broker = info.components.find((c) => c.name === 'nats')?.state === 'ready';
    await openPanel('orders', 'triggers');
    expect(await page.getByTestId('queue-new-orders').locator('td').nth(1).textContent()).toContain('ORDERS / orders.new');
    await expect.poll(() => text('queue-ready-new-orders'), { timeout: 60_000 }).toBe(broker ? 'yes' : 'NoBroker');
    if (broker) expect(await text('queue-pending-new-orders')).toMatch(/^\d+$/);
    await screenshot(page, 'function-triggers-queue');
    expect(await criticalViolations(page)).toEqual([]);
  });

  it("domains: why the example's host is not served, who holds it, and once a certificate is stored the days it has left", async () => {
    await openPanel('hello-site', 'domains');
    const served = page.getByTestId(`domain-served-${HOST}`).locator('span');
    // Without `orrery up --tls` no certificate exists for hello-tls: not served, and the tooltip says what to run.
    await expect.poll(() => served.textContent(), { timeout: 30_000 }).toBe('CertificateMissing');
    expect(await served.getAttribute('class')).toBe('error');
    expect(await served.getAttribute('title')).toContain(`orrery tls cert ${HOST} --secret default/hello-tls`);
    await screenshot(page, 'function-domains-missing');
    expect(await criticalViolations(page)).toEqual([]);

    // A second Function asking for the same host: the example listed it first and keeps it.
    await applyFunction(CLAIMER, { domains: [{ host: HOST }] });
    await openPanel(CLAIMER, 'domains');
    await expect.poll(() => text(`domain-served-${HOST}`), { timeout: 30_000 }).toBe('DomainClaimed by default/hello-site');

    await promisify(execFile)(process.execPath, [CLI, 'tls', 'cert', HOST, '--days', '30', '--data-dir', p.dataDir], { timeout: 30_000 });
    await openPanel('hello-site', 'domains');
    await expect.poll(() => text(`domain-served-${HOST}`), { timeout: 30_000 }).toBe('yes');
    expect(await served.getAttribute('title')).toBe('served over HTTPS with Secret default/hello-tls');
    // Issued for 30 days a few seconds ago: 29 whole days left, and a sliver of the bar used.
    const bar = page.getByTestId(`cert-bar-${HOST}`);
    expect(await bar.getAttribute('aria-label')).toMatch(new RegExp(`^Certificate of ${HOST.replaceAll('.', '\\.')}: expires in 29 days \\(`));
    expect(Number(await bar.locator('rect').nth(1).getAttribute('width'))).toBeLessThan(1);
    const fn = await adminQuery<OrreryFunction>(p, 'functions.get', { namespace: 'default', name: 'hello-site' });
    expect(fn.status?.domains?.[0]?.certificate?.dnsNames).toEqual([HOST]);
    await screenshot(page, 'function-domains-ready');
    expect(await criticalViolations(page)).toEqual([]);
  });

  it('build: an inline source has nothing to build', async () => {
    await openPanel('heartbeat', 'build');
    expect(await text('build-none')).toMatch(/^inline source: nothing to build/);
    expect(await page.getByTestId('build-phase').count()).toBe(0);
  });
});
