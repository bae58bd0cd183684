/**
 * Finds credentials where a pod spec would expose them: on command lines (visible in `ps`,
 * /proc/<pid>/cmdline, `kubectl get pod -o yaml`) or as plain env values. Credentials must come
 * from Secrets: files of a mounted Secret or env `valueFrom.secretKeyRef`.
 */
import type { K8sObject } from './helm-template.ts';

export interface CredentialFinding {
  where: string;
  why: string;
}

const SECRETISH = /(token|password|passwd|secret|credential|(^|[-_])key)/i;
/** Flags that carry a file path or the name of a Secret, never the value itself. */
const REFERENCE_FLAG = /-(file|secret|secret-name)$/;
/** Flags whose names sound secret-ish but take no credential (a switch, a list of Secret refs). */
const NOT_A_CREDENTIAL = new Set(['require-registry-write-tokens', 'generate-secret', 'redis-key-prefix']);
/** A Redis password written into a command line (`redis-server --requirepass x`, a config written by a shell); `$(cat FILE)` reads it from a file instead. */
const REDIS_PASSWORD_LITERAL = /(^|[\s-])requirepass\s+(?!\$\(cat\s)\S/;
const URL_WITH_PASSWORD = /[a-z][a-z0-9+.-]*:\/\/[^/\s:@]*:([^@\s/]+)@/i;
/**
 * A long random-looking run: 32+ hex digits, or 40+ base64 characters mixing digits and both
 * cases (paths and DNS names are long too, but not like that).
 */
function looksRandom(text: string): boolean {
  if (/[A-Fa-f0-9]{32,}/.test(text)) return true;
  return (text.match(/[A-Za-z0-9+/_-]{40,}={0,2}/g) ?? []).some((run) => [/[0-9]/g, /[A-Z]/g, /[a-z]/g].every((re) => (run.match(re) ?? []).length >= 3));
}

type Container = { name: string; command?: string[]; args?: string[]; env?: Array<{ name: string; value?: string; valueFrom?: unknown }> };

function podSpecOf(o: K8sObject): { containers?: Container[]; initContainers?: Container[] } | undefined {
  return o.spec?.template?.spec ?? o.spec?.jobTemplate?.spec?.template?.spec ?? (o.kind === 'Pod' ? o.spec : undefined);
}

/** `$(VAR)` references are the kubelet's expansion of other env entries, not literal values. */
const withoutExpansions = (s: string) => s.replace(/\$\([A-Za-z_][A-Za-z0-9_]*\)/g, '');

export function scanCredentials(objects: K8sObject[]): CredentialFinding[] {
  const out: CredentialFinding[] = [];
  for (const o of objects) {
    const pod = podSpecOf(o);
    if (!pod) continue;
    for (const c of [...(pod.initContainers ?? []), ...(pod.containers ?? [])]) {
      const at = `${o.kind}/${o.metadata.name} container ${c.name}`;
      for (const arg of [...(c.command ?? []), ...(c.args ?? [])]) {
        const flag = /^--?([A-Za-z0-9-]+)(=(.*))?$/.exec(arg);
        const value = flag?.[3];
        if (flag && value !== undefined && SECRETISH.test(flag[1]!) && !REFERENCE_FLAG.test(flag[1]!) && !NOT_A_CREDENTIAL.has(flag[1]!)) {
          out.push({ where: `${at} arg ${arg.split('=')[0]}`, why: 'a credential-like flag with its value on the command line; pass a file of a mounted Secret (--x-file) instead' });
        }
        const text = withoutExpansions(arg);
        if (REDIS_PASSWORD_LITERAL.test(arg)) out.push({ where: `${at} arg`, why: 'a Redis password on the command line; read it from a file of a mounted Secret' });
        else if (URL_WITH_PASSWORD.test(text)) out.push({ where: `${at} arg`, why: 'a URL with a password on the command line' });
        else if (looksRandom(text)) out.push({ where: `${at} arg`, why: 'a long random-looking value on the command line' });
      }
      for (const e of c.env ?? []) {
        if (e.value === undefined) continue;
        const text = withoutExpansions(e.value);
        if (SECRETISH.test(e.name) && text.trim() !== '') out.push({ where: `${at} env ${e.name}`, why: 'a credential-like variable with a literal value; use valueFrom.secretKeyRef' });
        else if (URL_WITH_PASSWORD.test(text)) out.push({ where: `${at} env ${e.name}`, why: 'a URL with a literal password; take the password from a secretKeyRef ($(VAR))' });
        else if (looksRandom(text)) out.push({ where: `${at} env ${e.name}`, why: 'a long random-looking literal value' });
      }
    }
  }
  return out;
}
