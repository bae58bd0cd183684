/**
 * `--backend local|kubernetes`, read before anything else: each backend has its own flags
 * (docs/kubernetes-backend.md), so the choice is taken out of the arguments and the rest go to
 * the chosen backend's parser. Pure.
 */
import { UsageError } from './command-line.ts';

export type BackendName = 'local' | 'kubernetes';

/** The backend (`local` when not given) and the arguments without `--backend`; a bad name throws a UsageError. */
export function chooseBackend(args: readonly string[]): { backend: BackendName; args: string[] } {
  const at = args.findIndex((a) => a === '--backend' || a.startsWith('--backend='));
  if (at < 0) return { backend: 'local', args: [...args] };
  const flag = args[at]!;
  const inline = flag.includes('=');
  const name = inline ? flag.slice(flag.indexOf('=') + 1) : args[at + 1];
  if (name !== 'local' && name !== 'kubernetes') throw new UsageError('--backend must be local or kubernetes');
  return { backend: name, args: [...args.slice(0, at), ...args.slice(at + (inline ? 1 : 2))] };
}
