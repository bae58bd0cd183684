'use client';
import { useEffect, useState } from 'react';

type Theme = 'light' | 'dark';

/** Dark mode: follows the system until the user picks, then remembers the pick. */
export function ThemeToggle() {
  const [theme, setTheme] = useState<Theme | undefined>(undefined);
  useEffect(() => {
    const saved = localStorage.getItem('orrery-theme') as Theme | null;
    setTheme(saved ?? (matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light'));
  }, []);
  useEffect(() => {
    if (theme) document.documentElement.dataset.theme = theme;
  }, [theme]);
  const next = theme === 'dark' ? 'light' : 'dark';
  return (
    <button
      type="button"
      className="link"
      aria-label={`switch to ${next} mode`}
      onClick={() => {
        localStorage.setItem('orrery-theme', next);
        setTheme(next);
      }}
    >
      {theme === 'dark' ? '☀ Light' : '☾ Dark'}
    </button>
  );
}
