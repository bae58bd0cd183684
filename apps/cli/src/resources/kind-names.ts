/** The names a user may type for a kind (`functions`, `function`, `fn`, `Function`, …). */
import type { ResourceKind } from '@orrery/spec';

const ALIASES: Record<string, ResourceKind> = {
  function: 'Function',
  functions: 'Function',
  fn: 'Function',
  fns: 'Function',
  revision: 'Revision',
  revisions: 'Revision',
  rev: 'Revision',
  revs: 'Revision',
  environment: 'Environment',
  environments: 'Environment',
  env: 'Environment',
  envs: 'Environment',
  registrycluster: 'RegistryCluster',
  registryclusters: 'RegistryCluster',
  rc: 'RegistryCluster',
  statesync: 'StateSync',
  statesyncs: 'StateSync',
};

export const KIND_CHOICES = 'functions|revisions|environments|registryclusters|statesyncs';

export function kindFromName(name: string): ResourceKind | undefined {
  return ALIASES[name.toLowerCase()];
}

/** `function.orrery.dev/counter`: how kubectl-style output names an object. */
export function qualifiedName(kind: string, name: string): string {
  return `${kind.toLowerCase()}.orrery.dev/${name}`;
}
