/**
 * How Orrery's own workers appear in the registry (see docs/registry.md): the registry
 * namespace is the function's Kubernetes namespace and the service is
 * `orrery.functions.<namespace>.<function>.<revision>`, endpoint name `http`.
 */
export function orreryServiceName(namespace: string, fn: string, revision: string): string {
  return `orrery.functions.${namespace}.${fn}.${revision}`;
}

export function orreryInstanceLabels(fn: string, revision: string, executor: string): Record<string, string> {
  return { 'orrery.dev/function': fn, 'orrery.dev/revision': revision, 'orrery.dev/executor': executor };
}
