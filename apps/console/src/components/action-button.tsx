'use client';
import type { ButtonHTMLAttributes } from 'react';
import { useCan } from '../lib/session.ts';

/** A button for a mutation: disabled (with the reason as its title) when the role may not call it. */
export function ActionButton({ procedure, disabled, title, ...rest }: ButtonHTMLAttributes<HTMLButtonElement> & { procedure: string }) {
  const can = useCan(procedure);
  return <button type="button" {...rest} disabled={disabled || !can.allowed} title={can.allowed ? title : can.reason} data-procedure={procedure} />;
}
