import { runInNewContext, Script } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { isTheme, THEME_BOOT_SCRIPT, THEME_STORAGE_KEY, themeOf, type Theme } from './theme.ts';

/** Runs the boot script as the browser would, with the given storage and system preference. */
function boot(stored: string | null, systemDark: boolean | 'no-matchMedia', storageThrows = false): string | undefined {
  const dataset: Record<string, string> = {};
  const localStorage = {
    getItem(key: string) {
      if (storageThrows) throw new Error('SecurityError: site data blocked');
      return key === THEME_STORAGE_KEY ? stored : null;
    },
  };
  const matchMedia = (q: string) => ({ matches: q === '(prefers-color-scheme: dark)' && systemDark === true });
  const document = { documentElement: { dataset } };
  // A fresh global, as a page's script gets: only what the browser would offer it.
  runInNewContext(THEME_BOOT_SCRIPT, systemDark === 'no-matchMedia' ? { localStorage, document } : { localStorage, matchMedia, document });
  return dataset.theme;
}

describe('themeOf', () => {
  it.each<[string | null | undefined, boolean, Theme]>([
    [null, true, 'dark'],
    [null, false, 'light'],
    [undefined, true, 'dark'],
    ['light', true, 'light'],
    ['dark', false, 'dark'],
    ['light', false, 'light'],
    ['dark', true, 'dark'],
    ['', true, 'dark'],
    ['Dark', false, 'light'],
    ['sepia', true, 'dark'],
  ])('stored %j, system dark %j → %s', (stored, systemDark, want) => {
    expect(themeOf(stored, systemDark)).toBe(want);
  });

  it('isTheme accepts exactly light and dark', () => {
    expect(['light', 'dark', 'LIGHT', '', null, 1].map(isTheme)).toEqual([true, true, false, false, false, false]);
  });
});

describe('THEME_BOOT_SCRIPT', () => {
  it.each([null, 'light', 'dark', '', 'sepia'])('agrees with themeOf for stored %j', (stored) => {
    for (const systemDark of [true, false]) expect(boot(stored, systemDark)).toBe(themeOf(stored, systemDark));
  });

  it('falls back to the system when storage throws', () => {
    expect(boot('light', true, true)).toBe('dark');
    expect(boot('dark', false, true)).toBe('light');
  });

  it('is light without matchMedia and without a choice', () => {
    expect(boot(null, 'no-matchMedia')).toBe('light');
    expect(boot('dark', 'no-matchMedia')).toBe('dark');
  });

  it('is one self-contained expression (no bundle has loaded when it runs)', () => {
    expect(THEME_BOOT_SCRIPT).not.toMatch(/\b(import|require|export)\b/);
    expect(() => new Script(THEME_BOOT_SCRIPT)).not.toThrow();
  });
});
