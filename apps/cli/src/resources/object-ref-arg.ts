/**
 * `[namespace/]name` as commands take one object (a function, a RegistryCluster): the form
 * `orrery get` prints and the console's URLs use. Without a namespace part, `-n` or "default".
 */
import { DNS1123_LABEL } from '@orrery/spec';

export function parseObjectRef(arg: string, defaultNamespace = 'default'): { namespace: string; name: string } | { error: string } {
  const parts = arg.split('/');
  if (parts.length > 2) return { error: `"${arg}" is not [namespace/]name` };
  const [namespace, name] = parts.length === 2 ? [parts[0]!, parts[1]!] : [defaultNamespace, parts[0]!];
  for (const [what, v] of [
    ['namespace', namespace],
    ['name', name],
  ] as const) {
    if (!DNS1123_LABEL.test(v) || v.length > 63) return { error: `"${arg}": ${what} "${v}" must be a DNS-1123 label (lowercase letters, digits, -)` };
  }
  return { namespace, name };
}
