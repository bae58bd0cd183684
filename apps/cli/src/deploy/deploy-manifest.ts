/**
 * The Function `orrery deploy` applies: the stored one (if any) with only what the flags name
 * changed, so a deploy never drops traffic, env or state settings made elsewhere; a new
 * Function gets the spec defaults for the rest.
 */
import { GROUP_VERSION, type OrreryFunction, type Source } from '@orrery/spec';
import type { DeployRequest } from './deploy-flags.ts';

export type DeployManifest = { apiVersion: typeof GROUP_VERSION; kind: 'Function'; metadata: Record<string, unknown>; spec: Record<string, unknown> };

/** The manifest to apply, or why the flags cannot apply to this Function. */
export function deployManifest(existing: OrreryFunction | undefined, req: DeployRequest, source: Source | undefined): DeployManifest | { error: string } {
  if (!existing && !source) return { error: `function ${req.namespace}/${req.name} does not exist yet: give its code with --code FILE` };
  const spec = structuredClone((existing?.spec ?? {}) as Record<string, unknown>) as {
    template?: Record<string, unknown> & { autoscaling?: Record<string, unknown> };
    state?: Record<string, unknown>;
  };
  const template = (spec.template ??= {});
  if (source) template.source = source;
  if (req.environment !== undefined) template.environment = req.environment;
  if (req.containerConcurrency !== undefined) template.containerConcurrency = req.containerConcurrency;
  if (req.scale) template.autoscaling = { ...template.autoscaling, minScale: req.scale.minScale, maxScale: req.scale.maxScale };
  if (req.keyspace !== undefined) spec.state = { ...spec.state, keyspace: req.keyspace };
  if (req.sticky) {
    // Sticky routing belongs to state (spec.state.sticky): it sends one key's requests to one worker.
    if (!spec.state) return { error: `--sticky needs a stateful function: add --state KEYSPACE (${req.name} has no spec.state)` };
    spec.state = { ...spec.state, sticky: req.sticky };
  }
  const metadata: Record<string, unknown> = { name: req.name, namespace: req.namespace };
  if (existing?.metadata.labels) metadata.labels = existing.metadata.labels;
  if (existing?.metadata.annotations) metadata.annotations = existing.metadata.annotations;
  return { apiVersion: GROUP_VERSION, kind: 'Function', metadata, spec };
}
