'use client';
import { useEffect, useSyncExternalStore } from 'react';
import { isTheme, THEME_STORAGE_KEY, themeOf, type Theme } from '../lib/theme.ts';

const SYSTEM_DARK = '(prefers-color-scheme: dark)';

// The theme lives on <html data-theme> (set before the first paint by the root layout's boot
// script); the toggle only reads and writes it there, so the two can never disagree.
function subscribe(onChange: () => void): () => void {
  const o = new MutationObserver(onChange);
  o.observe(document.documentElement, { attributes: true, attributeFilter: ['data-theme'] });
  return () => o.disconnect();
}
const shownTheme = (): Theme | undefined => {
  const t = document.documentElement.dataset.theme;
  return isTheme(t) ? t : undefined;
};
// The server cannot know the theme: the label appears once hydrated.
const noThemeOnServer = (): Theme | undefined => undefined;

function storedChoice(): string | null {
  try {
    return localStorage.getItem(THEME_STORAGE_KEY);
  } catch {
    return null;
  }
}

/** Dark mode: follows the system (live) until the user picks, then remembers the pick. */
export function ThemeToggle() {
  const theme = useSyncExternalStore(subscribe, shownTheme, noThemeOnServer);
  useEffect(() => {
    const system = matchMedia(SYSTEM_DARK);
    const follow = () => {
      document.documentElement.dataset.theme = themeOf(storedChoice(), system.matches);
    };
    system.addEventListener('change', follow);
    return () => system.removeEventListener('change', follow);
  }, []);
  const next: Theme = theme === 'dark' ? 'light' : 'dark';
  return (
    <button
      type="button"
      className="link"
      aria-label={`switch to ${next} mode`}
      style={theme ? undefined : { visibility: 'hidden' }}
      onClick={() => {
        try {
          localStorage.setItem(THEME_STORAGE_KEY, next);
        } catch {
          // Blocked site data: the choice holds for this page only.
        }
        document.documentElement.dataset.theme = next;
      }}
    >
      {theme === 'dark' ? '☀ Light' : '☾ Dark'}
    </button>
  );
}
