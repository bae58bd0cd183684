'use client';
import { useEffect, useRef } from 'react';

/**
 * Brings the element named by the URL's fragment (`#sticky`, `#rev-<name>`) into view once the
 * page has rendered it. Pages render their sections only after their data arrives — later than
 * the browser's own jump to the fragment, which then finds nothing — so deep links need this.
 * Each fragment is scrolled to once, so later refreshes do not yank the page back.
 */
export function useScrollToHash(ready: boolean): void {
  const done = useRef<string | null>(null);
  useEffect(() => {
    const hash = decodeURIComponent(window.location.hash.slice(1));
    if (!ready || !hash || done.current === hash) return;
    const el = document.getElementById(hash);
    if (!el) return;
    done.current = hash;
    el.scrollIntoView({ block: 'start' });
  });
}
