/**
 * Adding `spec.template.onWorkerLoss` must not change what an existing template parses to: the
 * operator creates a new Revision whenever the Function's parsed template is not deep-equal to
 * the newest Revision's (apps/operator reconcile/function-revisions.ts `revisionToCreate`), so a
 * defaulted field would roll out a new revision of every Function on upgrade.
 */
import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { renderCrds } from '../crd/render.ts';
import { FunctionSchema, FunctionTemplateSchema } from './function.ts';
import { RevisionSchema } from './revision.ts';

/** What the schema made of these two templates before the field existed, byte for byte (any hash over it is therefore unchanged). */
const BEFORE = [
  [{ source: { inline: 'x' } }, '{"source":{"inline":"x"},"environment":"nodejs","entrypoint":"default","env":[],"containerConcurrency":0,"timeoutSeconds":300,"executor":"deploy","autoscaling":{"class":"kpa","metric":"concurrency"}}'],
  [
    { source: { configMapRef: { name: 'c' } }, environment: 'python', env: [{ name: 'A', value: '1' }], containerConcurrency: 4, timeoutSeconds: 9, executor: 'pool', autoscaling: { minScale: 1, window: '60s' } },
    '{"source":{"configMapRef":{"name":"c","key":"index.mjs"}},"environment":"python","entrypoint":"default","env":[{"name":"A","value":"1"}],"containerConcurrency":4,"timeoutSeconds":9,"executor":"pool","autoscaling":{"class":"kpa","metric":"concurrency","minScale":1,"window":"60s"}}',
  ],
] as const;

const meta = { namespace: 'default' };

describe('spec.template.onWorkerLoss and existing templates', () => {
  it.each(BEFORE)('a template without it parses exactly as before, with no onWorkerLoss key', (input, serialized) => {
    const parsed = FunctionTemplateSchema.parse(input);
    expect(JSON.stringify(parsed)).toBe(serialized);
    expect(isDeepStrictEqual(parsed, JSON.parse(serialized))).toBe(true);
    expect(Object.hasOwn(parsed, 'onWorkerLoss')).toBe(false);
  });

  it.each(BEFORE)('the newest Revision stored before the upgrade still snapshots its Function: no new revision', (input, serialized) => {
    const fn = FunctionSchema.parse({ apiVersion: 'orrery.dev/v1alpha1', kind: 'Function', metadata: { ...meta, name: 'shop' }, spec: { template: input } });
    // A Revision as the operator wrote it then: the parsed template, defaults filled in.
    const stored = RevisionSchema.parse({ apiVersion: 'orrery.dev/v1alpha1', kind: 'Revision', metadata: { ...meta, name: 'shop-00001' }, spec: { function: 'shop', template: JSON.parse(serialized) } });
    expect(isDeepStrictEqual(stored.spec.template, fn.spec.template)).toBe(true);
  });

  it('has no default in the CRDs either, so the API server adds nothing to stored Functions and Revisions', () => {
    const crds = renderCrds();
    for (const file of ['functions.orrery.dev.yaml', 'revisions.orrery.dev.yaml']) {
      const crd = parse(crds.get(file)!) as { spec: { versions: Array<{ schema: { openAPIV3Schema: { properties: { spec: { properties: { template: { properties: Record<string, Record<string, unknown>> } } } } } } }> } };
      const field = crd.spec.versions[0]!.schema.openAPIV3Schema.properties.spec.properties.template.properties.onWorkerLoss!;
      expect(field, file).toMatchObject({ type: 'string', enum: ['fail', 'replay'] });
      expect(Object.hasOwn(field, 'default'), file).toBe(false);
    }
  });

  it('is kept when set, and only fail or replay are accepted', () => {
    expect(FunctionTemplateSchema.parse({ source: { inline: 'x' }, onWorkerLoss: 'replay' }).onWorkerLoss).toBe('replay');
    expect(FunctionTemplateSchema.parse({ source: { inline: 'x' }, onWorkerLoss: 'fail' }).onWorkerLoss).toBe('fail');
    for (const onWorkerLoss of ['retry', 'Replay', '', true]) expect(FunctionTemplateSchema.safeParse({ source: { inline: 'x' }, onWorkerLoss }).success, String(onWorkerLoss)).toBe(false);
  });
});
