import type { Revision } from '@orrery/spec';

/**
 * The `orrery-runtime` flags that say which revision a worker serves and how, the same on both
 * backends (a child process locally, a container's args on Kubernetes). Credentials never travel
 * here: argv is visible to every user of the machine.
 */
export function revisionWorkerArgs(rev: Revision, workDir: string): string[] {
  const t = rev.spec.template;
  return [
    '--namespace', rev.metadata.namespace,
    '--function', rev.spec.function,
    '--revision', rev.metadata.name,
    '--entrypoint', t.entrypoint,
    '--container-concurrency', String(t.containerConcurrency),
    '--timeout-seconds', String(t.timeoutSeconds),
    '--work-dir', workDir,
  ];
}
