'use client';
import { useState } from 'react';

/**
 * Copies `text` to the clipboard. Where the browser refuses (no clipboard API, or an http origin
 * other than localhost), it shows the whole value so it can be selected by hand instead.
 */
export function CopyButton({ text, label, testId }: { text: string; label: string; testId?: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setState('copied');
    } catch {
      setState('failed');
    }
  };
  return (
    <>
      <button type="button" className="link" onClick={() => void copy()} aria-label={label} data-testid={testId}>
        copy
      </button>
      <span role="status" className="muted">
        {state === 'copied' ? 'copied' : null}
        {state === 'failed' ? (
          <>
            the browser refused; select it: <code>{text}</code>
          </>
        ) : null}
      </span>
    </>
  );
}
