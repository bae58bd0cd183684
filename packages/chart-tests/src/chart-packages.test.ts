/**
 * The chart's package-build values (packages.*; docs/kubernetes-backend.md "Packages"), rendered by
 * the real `helm template`: the builder image and volume settings become operator flags the
 * operator knows, and the operator's role may run build Jobs and read a build pod's log.
 */
import { describe, expect, it } from 'vitest';
import { appFlags, flagName } from './app-flags.ts';
import { helmTemplate, type K8sObject } from './helm-template.ts';

const REQUIRED = { postgres: { existingSecret: 'orrery-postgres' }, state: { masterKey: { existingSecret: 'orrery-state-key' } } };
const operatorArgs = (objects: K8sObject[]) =>
  objects.find((o) => o.kind === 'Deployment' && o.metadata.name === 'orrery-operator')!.spec.template.spec.containers[0].args as string[];
type Rule = { apiGroups: string[]; resources: string[]; verbs: string[] };
const rulesOf = (objects: K8sObject[]) => (objects.find((o) => o.kind === 'ClusterRole' && o.metadata.name === 'orrery-operator') as unknown as { rules: Rule[] }).rules;
const allows = (rules: Rule[], group: string, resource: string, verb: string) => rules.some((r) => r.apiGroups.includes(group) && r.resources.includes(resource) && r.verbs.includes(verb));

describe('chart: package builds', () => {
  it('passes the builder image and the package volume defaults as flags the operator knows', () => {
    const { objects } = helmTemplate(REQUIRED);
    const args = operatorArgs(objects);
    expect(args).toEqual(expect.arrayContaining([expect.stringMatching(/^--builder-image=orrery\/builder:.+/), '--build-timeout=600s', '--package-volume-size=10Gi', '--package-volume-access-mode=ReadWriteOnce']));
    expect(args.some((a) => a.startsWith('--package-storage-class'))).toBe(false);
    const known = appFlags('apps/operator/src/backends/kubernetes/package-build/package-build-flags.ts');
    expect(args.map(flagName).filter((f) => f && /^(builder|build|package)-/.test(f) && !known.has(f))).toEqual([]);
  });

  it('takes a storage class, access mode, size and a registry prefix for the builder image', () => {
    const { objects } = helmTemplate({ ...REQUIRED, global: { imageRegistry: 'registry.example.com' }, packages: { builder: { image: { tag: '1.2.3' }, timeout: '15m' }, volume: { size: '50Gi', storageClass: 'nfs-client', accessMode: 'ReadWriteMany' } } });
    expect(operatorArgs(objects)).toEqual(expect.arrayContaining(['--builder-image=registry.example.com/orrery/builder:1.2.3', '--build-timeout=15m', '--package-volume-size=50Gi', '--package-storage-class=nfs-client', '--package-volume-access-mode=ReadWriteMany']));
  });

  it('lets the operator run build Jobs, make package volumes and read build logs, nothing more on pods/log', () => {
    const rules = rulesOf(helmTemplate(REQUIRED).objects);
    for (const verb of ['get', 'list', 'watch', 'create', 'patch']) expect(allows(rules, 'batch', 'jobs', verb), `jobs ${verb}`).toBe(true);
    expect(allows(rules, '', 'persistentvolumeclaims', 'create')).toBe(true);
    expect(allows(rules, '', 'pods/log', 'get')).toBe(true);
    expect(rules.filter((r) => r.resources.includes('pods/log')).flatMap((r) => r.verbs)).toEqual(['get']);
  });

  it('helm refuses an access mode the operator does not take', () => {
    expect(() => helmTemplate({ ...REQUIRED, packages: { volume: { accessMode: 'ReadOnlyMany' } } })).toThrow(/accessMode/);
  });
});
