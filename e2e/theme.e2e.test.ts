/**
 * Dark mode without a light flash: the root layout's boot script sets the theme on <html> before
 * the first paint, from the stored choice or else the system's `prefers-color-scheme`. The
 * page's own state is recorded from an init script (it runs before any of the page's scripts),
 * at the moment the parser creates <body> and at the first animation frame, i.e. before React
 * has hydrated anything.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { goto, launchChromium, logIn, screenshot } from './browser.ts';

const p = inject('platform');
let browser: Browser;

// globals.css: --bg of each theme, as getComputedStyle reports it.
const DARK_BG = 'rgb(15, 18, 22)';
const LIGHT_BG = 'rgb(246, 247, 249)';

interface Snapshot {
  theme: string | null;
  background: string;
  hydrated: boolean;
}
interface EarlyTheme {
  atBody?: Snapshot;
  firstFrame?: Snapshot;
}

/** Runs in the page before its own scripts: records the theme when <body> appears and at the first frame. */
function recordEarlyTheme(): void {
  const early: EarlyTheme = {};
  (window as unknown as { __earlyTheme: EarlyTheme }).__earlyTheme = early;
  const snap = (): Snapshot => {
    const html = document.documentElement;
    const body = document.body as (HTMLElement & Record<string, unknown>) | null;
    return {
      theme: html.dataset.theme ?? null,
      background: getComputedStyle(body ?? html).backgroundColor,
      // React marks the nodes it has hydrated with __reactFiber$… properties.
      hydrated: body !== null && Object.keys(body).some((k) => k.startsWith('__react')),
    };
  };
  const watch = new MutationObserver(() => {
    if (document.body && !early.atBody) {
      early.atBody = snap();
      watch.disconnect();
    }
  });
  watch.observe(document, { childList: true, subtree: true });
  requestAnimationFrame(() => (early.firstFrame = snap()));
}

async function earlyTheme(page: Page): Promise<EarlyTheme> {
  await page.waitForFunction(() => (window as unknown as { __earlyTheme?: EarlyTheme }).__earlyTheme?.firstFrame !== undefined);
  return page.evaluate(() => (window as unknown as { __earlyTheme: EarlyTheme }).__earlyTheme);
}

/** Switches the emulated system theme and returns once the page's media listeners have run. */
async function systemTurns(page: Page, colorScheme: 'dark' | 'light'): Promise<void> {
  await page.evaluate(() => {
    const w = window as unknown as { __systemChanged?: boolean };
    w.__systemChanged = false;
    // Registered after the console's own listener, so it runs after it.
    matchMedia('(prefers-color-scheme: dark)').addEventListener('change', () => (w.__systemChanged = true), { once: true });
  });
  await page.emulateMedia({ colorScheme });
  await page.waitForFunction(() => (window as unknown as { __systemChanged?: boolean }).__systemChanged === true);
}

async function newContext(colorScheme: 'dark' | 'light'): Promise<BrowserContext> {
  const ctx = await browser.newContext({ colorScheme, viewport: { width: 1200, height: 800 } });
  await ctx.addInitScript(recordEarlyTheme);
  return ctx;
}

beforeAll(async () => {
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
});

describe('theme before first paint', () => {
  it('a dark system with no stored choice paints dark from the first frame, before hydration', async () => {
    const ctx = await newContext('dark');
    try {
      const page = await ctx.newPage();
      await goto(page, `${p.consoleUrl}/login`);
      const early = await earlyTheme(page);
      expect(early.atBody, JSON.stringify(early)).toMatchObject({ theme: 'dark', hydrated: false });
      expect(early.firstFrame, JSON.stringify(early)).toMatchObject({ theme: 'dark', background: DARK_BG });
      await screenshot(page, 'theme-dark-first-load');
    } finally {
      await ctx.close();
    }
  });

  it('a light system with no stored choice paints light', async () => {
    const ctx = await newContext('light');
    try {
      const page = await ctx.newPage();
      await goto(page, `${p.consoleUrl}/login`);
      const early = await earlyTheme(page);
      expect(early.atBody, JSON.stringify(early)).toMatchObject({ theme: 'light', hydrated: false });
      expect(early.firstFrame, JSON.stringify(early)).toMatchObject({ theme: 'light', background: LIGHT_BG });
    } finally {
      await ctx.close();
    }
  });

  it('follows the system live until the user chooses; a stored light choice then wins over a dark system', async () => {
    const ctx = await newContext('dark');
    try {
      const page = await ctx.newPage();
      await logIn(page, p.consoleUrl, { token: p.adminToken });
      const theme = () => page.evaluate(() => document.documentElement.dataset.theme);
      expect(await theme()).toBe('dark');
      // No choice yet: the system switching to light takes the page along, and back.
      await systemTurns(page, 'light');
      expect(await theme()).toBe('light');
      await systemTurns(page, 'dark');
      expect(await theme()).toBe('dark');

      await page.getByRole('button', { name: 'switch to light mode' }).click();
      await expect.poll(theme).toBe('light');
      await page.getByRole('button', { name: 'switch to dark mode' }).waitFor();
      // The choice is remembered: a reload under the dark system paints light from the first frame.
      await page.reload();
      const early = await earlyTheme(page);
      expect(early.atBody, JSON.stringify(early)).toMatchObject({ theme: 'light', hydrated: false });
      expect(early.firstFrame, JSON.stringify(early)).toMatchObject({ theme: 'light', background: LIGHT_BG });
      // …and the system no longer decides.
      await page.getByTestId('role').waitFor();
      await systemTurns(page, 'light');
      await systemTurns(page, 'dark');
      expect(await theme()).toBe('light');
      await screenshot(page, 'theme-stored-light-on-dark-system');
    } finally {
      await ctx.close();
    }
  });
});
