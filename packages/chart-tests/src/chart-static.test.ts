/**
 * Static checks of charts/orrery: parses what is plain YAML, compares the CRDs with the
 * generator, and reads the templates for what rendering alone cannot show (which values they
 * read, which helpers every workload includes). Rendering and linting are helm's:
 * chart-helm.test.ts and chart-render.test.ts.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { renderCrds } from '../../spec/src/crd/render.ts';
import { chartDir, chartTemplates, readChartFile } from './chart-files.ts';
import { valuesLeaves, valuesPathExists, valuesReferences } from './values-paths.ts';

const templates = chartTemplates();
const values: unknown = parse(readChartFile('values.yaml'));
const chart: unknown = parse(readChartFile('Chart.yaml'));

/** Reads `a.b.c` from a parsed YAML tree (undefined when absent). */
const at = (tree: unknown, path: string): unknown =>
  path.split('.').reduce<unknown>((node, key) => (node !== null && typeof node === 'object' ? (node as Record<string, unknown>)[key] : undefined), tree);
const crdFiles = readdirSync(join(chartDir, 'crds')).filter((f) => f.endsWith('.yaml')).sort();

describe('plain YAML in the chart', () => {
  it('Chart.yaml is a v2 application chart with an appVersion', () => {
    expect(chart).toMatchObject({ apiVersion: 'v2', name: 'orrery', type: 'application' });
    expect(at(chart, 'version')).toMatch(/^\d+\.\d+\.\d+/);
    expect(String(at(chart, 'appVersion') as string)).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('values.yaml parses to an object and leaves image tags empty (= appVersion)', () => {
    expect(values).toBeTypeOf('object');
    for (const component of ['operator', 'statesvc', 'router', 'console']) {
      expect(at(values, `${component}.image.tag`), component).toBe('');
      expect(at(values, `${component}.image.repository`), component).toBe(`orrery/${component}`);
    }
  });

  it.each(crdFiles)('crds/%s parses as exactly one CustomResourceDefinition', (file) => {
    const docs = parseAllDocuments(readChartFile(join('crds', file)));
    expect(docs.map((d) => d.errors)).toEqual([[]]);
    expect(docs[0]!.toJS()).toMatchObject({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', spec: { group: 'orrery.dev' } });
  });
});

describe('CRDs match packages/spec', () => {
  const generated = renderCrds();

  it('the chart has one CRD per generated kind and nothing else', () => {
    expect(crdFiles).toEqual([...generated.keys()].sort());
  });

  it.each([...generated.keys()])('%s equals the generator output (run npm run gen:crds when this fails)', (file) => {
    const onDisk = readChartFile(join('crds', file));
    expect(parse(onDisk)).toEqual(parse(generated.get(file)!));
    expect(onDisk).toBe(generated.get(file));
  });
});

describe('templates', () => {
  it('include the workloads, webhook, RBAC, NetworkPolicies, PDBs and NOTES', () => {
    const names = templates.map((t) => t.name);
    for (const required of [
      '_helpers.tpl', 'NOTES.txt', 'operator-deployment.yaml', 'operator-service.yaml', 'webhook-configurations.yaml',
      'statesvc-deployment.yaml', 'statesvc-service.yaml', 'router-deployment.yaml', 'router-service.yaml', 'router-pdb.yaml',
      'console-deployment.yaml', 'console-service.yaml', 'rbac.yaml', 'serviceaccounts.yaml',
      'networkpolicy-statesvc.yaml', 'networkpolicy-registry.yaml', 'networkpolicy-router.yaml',
    ]) {
      expect(names).toContain(required);
    }
  });

  // helm lint --strict does not catch this one: a missing leaf renders as an empty string.
  it.each(templates.map((t) => [t.name, t.text]))('every .Values path in %s exists in values.yaml', (_name, text) => {
    const missing = valuesReferences(text)
      .filter((ref) => !valuesPathExists(values, ref.path))
      .map((ref) => `line ${ref.line}: .Values.${ref.path.join('.')}`);
    expect(missing).toEqual([]);
  });

  it('every setting in values.yaml is read by some template (no dead knobs)', () => {
    const refs = templates.flatMap((t) => valuesReferences(t.text).map((r) => r.path.join('.')));
    const unread = valuesLeaves(values)
      .map((leaf) => leaf.join('.'))
      .filter((leaf) => !refs.some((ref) => leaf === ref || leaf.startsWith(`${ref}.`)));
    expect(unread).toEqual([]);
  });

  it('the scan sees a realistic number of values references (guards against a scanner that finds nothing)', () => {
    const total = templates.reduce((n, t) => n + valuesReferences(t.text).length, 0);
    expect(total).toBeGreaterThan(100);
  });
});

const isTrialDatabase = (name: string) => /-in-cluster\.yaml$/.test(name);
const workloads = templates.filter((t) => /^kind:\s*(Deployment|StatefulSet|DaemonSet|Job)\s*$/m.test(t.text) && !isTrialDatabase(t.name));
const trialDatabases = templates.filter((t) => isTrialDatabase(t.name));
const count = (text: string, pattern: RegExp) => (text.match(pattern) ?? []).length;

describe('security defaults in every pod spec', () => {
  it('finds the four workloads and the two trial databases', () => {
    expect(workloads.map((t) => t.name)).toEqual(['console-deployment.yaml', 'operator-deployment.yaml', 'router-deployment.yaml', 'statesvc-deployment.yaml']);
    expect(trialDatabases.map((t) => t.name)).toEqual(['postgres-in-cluster.yaml', 'redis-in-cluster.yaml']);
  });

  it.each(trialDatabases.map((t) => [t.name, t.text]))('%s (not for production): hardened, probed on its port, sized, no API token', (_name, text) => {
    expect(count(text, /^\s+image: /gm)).toBe(1);
    expect(count(text, /include "orrery\.podSecurityContext"/g)).toBe(1);
    expect(count(text, /include "orrery\.containerSecurityContext"/g)).toBe(1);
    expect(count(text, /^\s*securityContext:/gm)).toBe(0);
    expect(count(text, /livenessProbe:\s*\n\s*tcpSocket:/g)).toBe(1);
    expect(count(text, /readinessProbe:\s*\n\s*tcpSocket:/g)).toBe(1);
    expect(count(text, /^\s+resources:\s*\n\s*\{\{- toYaml \.Values\.\w+\.inCluster\.resources/gm)).toBe(1);
    expect(text).toContain('automountServiceAccountToken: false');
    expect(text).toContain('NOT FOR PRODUCTION');
  });

  it('values.yaml carries the hardened defaults', () => {
    expect(at(values, 'podSecurityContext')).toMatchObject({ runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } });
    expect(at(values, 'podSecurityContext.runAsUser')).toBeGreaterThan(0);
    expect(at(values, 'containerSecurityContext')).toMatchObject({
      runAsNonRoot: true,
      readOnlyRootFilesystem: true,
      allowPrivilegeEscalation: false,
      privileged: false,
      capabilities: { drop: ['ALL'] },
      seccompProfile: { type: 'RuntimeDefault' },
    });
  });

  it('the helpers render the security contexts from those values', () => {
    const helpers = templates.find((t) => t.name === '_helpers.tpl')!.text;
    expect(helpers).toMatch(/define "orrery\.podSecurityContext"[\s\S]*?toYaml \.Values\.podSecurityContext[\s\S]*?end/);
    expect(helpers).toMatch(/define "orrery\.containerSecurityContext"[\s\S]*?toYaml \.Values\.containerSecurityContext[\s\S]*?end/);
  });

  it.each(workloads.map((t) => [t.name, t.text]))('%s: pod and every container are hardened, probed and sized', (_name, text) => {
    const containers = count(text, /^\s+image: /gm);
    expect(containers).toBeGreaterThan(0);
    expect(count(text, /include "orrery\.podSecurityContext"/g)).toBe(1);
    expect(count(text, /include "orrery\.containerSecurityContext"/g)).toBe(containers);
    // No hand-written securityContext that could weaken the helpers' output.
    expect(count(text, /^\s*securityContext:/gm)).toBe(0);
    expect(count(text, /livenessProbe:\s*\n\s*httpGet:\s*\n\s*path: \/healthz/g)).toBe(containers);
    expect(count(text, /readinessProbe:\s*\n\s*httpGet:\s*\n\s*path: \/readyz/g)).toBe(containers);
    expect(count(text, /^\s+resources:\s*$/gm)).toBe(containers);
    // A read-only root filesystem needs a writable /tmp for tsx's cache.
    expect(text).toContain('include "orrery.tmpVolumeMount"');
    expect(text).toContain('include "orrery.tmpVolume"');
    expect(text).toMatch(/serviceAccountName: \{\{ include "orrery\.serviceAccountName"/);
  });

  it('the router refuses fewer than 2 replicas and defaults to 2 with a PDB', () => {
    const router = templates.find((t) => t.name === 'router-deployment.yaml')!.text;
    expect(router).toMatch(/if lt \(int \.Values\.router\.replicas\) 2 \}\}\s*\{\{- fail /);
    expect(at(values, 'router.replicas')).toBeGreaterThanOrEqual(2);
    expect(at(values, 'router.podDisruptionBudget.enabled')).toBe(true);
  });
});

describe('RBAC is least privilege and complete for the operator', () => {
  const rbac = templates.find((t) => t.name === 'rbac.yaml')!.text;
  const operatorRole = rbac.slice(0, rbac.indexOf('kind: ClusterRoleBinding'));

  it('covers every orrery.dev kind with its status subresource', () => {
    for (const plural of ['functions', 'revisions', 'environments', 'registryclusters', 'statesyncs']) {
      expect(operatorRole).toContain(`"${plural}"`);
      expect(operatorRole).toContain(`"${plural}/status"`);
    }
  });

  it('covers exactly the child kinds the operator manages', () => {
    for (const resource of ['deployments', 'deployments/scale', 'statefulsets', 'services', 'configmaps', 'secrets', 'serviceaccounts', 'persistentvolumeclaims', 'poddisruptionbudgets', 'events']) {
      expect(operatorRole).toContain(`"${resource}"`);
    }
    expect(rbac).toMatch(/kind: Role\n[\s\S]*?"leases"/);
    expect(rbac).not.toContain('"*"');
    expect(rbac).not.toMatch(/verbs: \[[^\]]*"(escalate|bind|impersonate)"/);
    expect(operatorRole).not.toMatch(/"(nodes|clusterroles|roles|rolebindings|namespaces)"/);
  });
});

describe('NetworkPolicies', () => {
  const byName = new Map(templates.map((t) => [t.name, t.text]));

  it("statesvc accepts traffic only from function workers and the console's API (in the operator)", () => {
    const np = byName.get('networkpolicy-statesvc.yaml')!;
    const ingress = np.slice(np.indexOf('ingress:'), np.indexOf('egress:'));
    expect(count(ingress, /- from:/g)).toBe(1);
    expect(ingress).toContain('include "orrery.np.functionWorkers"');
    expect(ingress).toContain('"component" "operator"');
    expect(ingress).not.toContain('"component" "console"');
    expect(ingress).not.toMatch(/namespaceSelector:\s*\{\}\s*$/m);
  });

  it('the registry exposes only its public port, never the admin listener', () => {
    const np = byName.get('networkpolicy-registry.yaml')!;
    const registryPolicy = np.slice(0, np.indexOf('---'));
    expect(registryPolicy).toContain('.Values.networkPolicy.registry.publicPort');
    expect(np).not.toMatch(/adminPort|admin-port|9090/);
    expect(at(values, 'networkPolicy.registry')).not.toHaveProperty('adminPort');
  });

  it('gives Postgres egress only to statesvc and the operator (audit log), Redis only to the router, the Kubernetes API only to the operator', () => {
    const postgres = [...byName].filter(([, text]) => text.includes('.Values.networkPolicy.postgres.port')).map(([n]) => n).sort();
    expect(postgres).toEqual(['networkpolicy-operator.yaml', 'networkpolicy-statesvc.yaml']);
    const apiServer = [...byName].filter(([, text]) => text.includes('.Values.networkPolicy.apiServer')).map(([n]) => n);
    expect(apiServer).toEqual(['networkpolicy-operator.yaml']);
    const redis = [...byName].filter(([, text]) => text.includes('.Values.networkPolicy.redis.port')).map(([n]) => n);
    expect(redis).toEqual(['networkpolicy-router.yaml']);
  });

  it('every chart workload has a policy with both directions', () => {
    for (const component of ['operator', 'statesvc', 'router', 'console', 'registry']) {
      const np = byName.get(`networkpolicy-${component}.yaml`)!;
      expect(np, component).toContain('policyTypes: ["Ingress", "Egress"]');
    }
  });
});
