/**
 * The chart through the real helm, no cluster needed: `helm lint --strict` and `helm template`
 * with the default values and with ci/test-values.yaml (the values of the test cluster install).
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { chartDir } from './chart-files.ts';
import { HelmError, helmTemplate, KUBE_VERSION, RELEASE, runHelm } from './helm-template.ts';

const ciValuesFile = join(chartDir, 'ci', 'test-values.yaml');
const ciValues = parse(readFileSync(ciValuesFile, 'utf8')) as Record<string, unknown>;
const LINTED = '1 chart(s) linted, 0 chart(s) failed';
const lint = (chart: string, ...args: string[]) => runHelm(['lint', '--strict', chart, ...args]);

describe('helm lint --strict', { timeout: 60_000 }, () => {
  it('passes with the default values', () => {
    expect(lint(chartDir)).toContain(LINTED);
  });

  it.each(['test-values.yaml', 'defaults-values.yaml'])('passes with ci/%s', (file) => {
    expect(lint(chartDir, '--values', join(chartDir, 'ci', file))).toContain(LINTED);
  });

  it('fails on a broken template (the lint can fail)', () => {
    const copy = mkdtempSync(join(tmpdir(), 'orrery-chart-'));
    try {
      cpSync(chartDir, copy, { recursive: true });
      const file = join(copy, 'templates', 'router-service.yaml');
      writeFileSync(file, readFileSync(file, 'utf8').replace('{{- with .Values.router.service.annotations }}', '{{- with .Values.router.servize.annotations }}'));
      expect(() => lint(copy, '--values', ciValuesFile)).toThrow(/router-service\.yaml.*nil pointer evaluating interface \{\}\.annotations/);
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  });
});

describe('helm template', { timeout: 60_000 }, () => {
  it('with the default values renders a whole install (issue 19; what it holds: chart-defaults.test.ts)', () => {
    const deployments = helmTemplate().objects.filter((o) => o.kind === 'Deployment').map((o) => o.metadata.name);
    expect(deployments).toEqual(expect.arrayContaining(['orrery-operator', 'orrery-router', 'orrery-statesvc']));
  });

  it('with a value helm cannot render, says which (the template can fail)', () => {
    expect(() => helmTemplate({ postgres: { inCluster: { enabled: false } } })).toThrow(HelmError);
  });

  it('with the CI values renders the test cluster install', () => {
    const { objects, bySource } = helmTemplate(ciValues);
    const deployments = objects.filter((o) => o.kind === 'Deployment').map((o) => o.metadata.name).sort();
    expect(deployments).toEqual(['orrery-operator', 'orrery-router', 'orrery-statesvc']);
    expect(objects.filter((o) => o.metadata.name.includes('console'))).toEqual([]);
    expect(bySource.get('templates/webhook-configurations.yaml')?.map((o) => o.kind).sort()).toEqual(['MutatingWebhookConfiguration', 'ValidatingWebhookConfiguration']);
    // every Secret the CI values name reaches a pod
    const text = JSON.stringify(objects);
    for (const secret of ['orrery-postgres', 'orrery-state-key', 'orrery-store-token', 'orrery-admin-token', 'orrery-registry-tokens', 'orrery-webhook-tls']) {
      expect(text, secret).toContain(`"${secret}"`);
    }
    const operator = objects.find((o) => o.kind === 'Deployment' && o.metadata.name === 'orrery-operator')!;
    expect(operator.spec.template.spec.containers[0].args).toContain('--registry-url=http://registry-registry.orrery-system.svc:8080');
    // Everything in the release namespace but the function workers' NetworkPolicy (in the Functions' namespaces).
    for (const o of objects.filter((x) => !(x.kind === 'NetworkPolicy' && x.metadata.name === 'orrery-function-workers'))) {
      expect(o.metadata.namespace ?? RELEASE.namespace, `${o.kind}/${o.metadata.name}`).toBe(RELEASE.namespace);
    }
  });

  it(`with the webhook's caBundle set by the test, puts it in both webhook configurations`, () => {
    const caBundle = Buffer.from('-----BEGIN CERTIFICATE-----\ntest\n-----END CERTIFICATE-----\n').toString('base64');
    const { objects } = helmTemplate({ ...ciValues, webhook: { tls: { secretName: 'orrery-webhook-tls', caBundle } } });
    const hooks = objects.filter((o) => /WebhookConfiguration$/.test(o.kind)).flatMap((o) => o.webhooks as Array<{ clientConfig: { caBundle?: string } }>);
    expect(hooks.map((h) => h.clientConfig.caBundle)).toEqual([caBundle, caBundle]);
  });

  it(`accepts the test cluster's Kubernetes ${KUBE_VERSION} and refuses one older than the chart's kubeVersion`, () => {
    expect(helmTemplate(ciValues).objects.length).toBeGreaterThan(20);
    expect(() => helmTemplate(ciValues, RELEASE, ['--kube-version', '1.20.0'])).toThrow(/chart requires kubeVersion: .* which is incompatible with Kubernetes v1\.20\.0/);
  });
});
