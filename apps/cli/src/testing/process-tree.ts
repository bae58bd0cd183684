/**
 * The processes below a root (children, grandchildren: the platform's workers, etcd members, the
 * registry), read from /proc: what the security tests scan the command lines of.
 */
import { readdirSync } from 'node:fs';
import { statFields } from '../platform/processes.ts';

/** `root` and every live process descended from it. */
export function descendants(root: number): number[] {
  const parent = new Map<number, number>();
  for (const e of readdirSync('/proc')) {
    if (!/^\d+$/.test(e)) continue;
    const f = statFields(Number(e));
    if (f) parent.set(Number(e), Number(f[1]));
  }
  const out = [root];
  for (let i = 0; i < out.length; i++) for (const [pid, ppid] of parent) if (ppid === out[i]) out.push(pid);
  return out;
}
