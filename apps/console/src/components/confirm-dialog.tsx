'use client';
import { useEffect, useRef, type ReactNode } from 'react';

/**
 * A modal confirmation (native <dialog>: focus trap and Escape come from the browser). The body
 * says what will happen (a diff, the quorum effect) before anything is sent.
 */
export function ConfirmDialog({
  open,
  title,
  children,
  confirmLabel,
  danger,
  busy,
  onConfirm,
  onCancel,
}: {
  open: boolean;
  title: string;
  children: ReactNode;
  confirmLabel: string;
  danger?: boolean;
  busy?: boolean;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const d = ref.current;
    if (!d) return;
    if (open && !d.open) d.showModal();
    if (!open && d.open) d.close();
  }, [open]);
  return (
    <dialog ref={ref} aria-labelledby="confirm-title" onCancel={onCancel} onClose={() => open && onCancel()}>
      <h2 id="confirm-title">{title}</h2>
      <div>{children}</div>
      <p style={{ display: 'flex', gap: 8, justifyContent: 'flex-end' }}>
        <button type="button" onClick={onCancel} disabled={busy}>
          Cancel
        </button>
        <button type="button" className={danger ? 'danger' : 'primary'} onClick={onConfirm} disabled={busy} data-testid="confirm-action">
          {busy ? 'Working…' : confirmLabel}
        </button>
      </p>
    </dialog>
  );
}
