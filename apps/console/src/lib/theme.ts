/**
 * The console's colour theme: the user's stored choice, else the system's `prefers-color-scheme`.
 * Applied as `data-theme` on <html> (globals.css keys its variables on it).
 */
export type Theme = 'light' | 'dark';

/** localStorage key of an explicit choice; absent means "follow the system". */
export const THEME_STORAGE_KEY = 'orrery-theme';

export const isTheme = (v: unknown): v is Theme => v === 'light' || v === 'dark';

/** The theme to show: a valid stored choice wins, else the system's preference. */
export function themeOf(stored: string | null | undefined, systemDark: boolean): Theme {
  if (isTheme(stored)) return stored;
  return systemDark ? 'dark' : 'light';
}

/**
 * Inline in <head>, so it runs before the body is parsed and before React hydrates: the first
 * paint already has the right colours (no light flash in dark mode). Plain ES5 in a string
 * because no bundle has loaded yet; it must agree with `themeOf` (theme.test.ts runs both).
 * Storage can throw (blocked site data): then the system decides.
 */
export const THEME_BOOT_SCRIPT = `(function(){var s=null;try{s=localStorage.getItem(${JSON.stringify(THEME_STORAGE_KEY)})}catch(e){}var d=typeof matchMedia==='function'&&matchMedia('(prefers-color-scheme: dark)').matches;document.documentElement.dataset.theme=s==='light'||s==='dark'?s:d?'dark':'light'})()`;
