import { describe, expect, it } from 'vitest';
import { redactInput } from './redact.ts';
import { REDACTED, redactEnvList, redactTemplateEnv } from './redact-env-values.ts';

const secretRef = { valueFrom: { secretKeyRef: { name: 'shop-keys', key: 'api-key' } } };
const fn = (env: unknown[]) => ({ apiVersion: 'orrery.dev/v1alpha1', kind: 'Function', metadata: { name: 'f' }, spec: { template: { source: { inline: 'x' }, env }, traffic: [] } });

describe('env value redaction', () => {
  it('redactEnvList replaces non-empty values, keeps names, empty values and Secret references', () => {
    expect(redactEnvList([{ name: 'A', value: 'pw' }, { name: 'B', value: '' }, { name: 'C' }, { name: 'D', ...secretRef }])).toEqual([
      { name: 'A', value: REDACTED },
      { name: 'B', value: '' },
      { name: 'C' },
      { name: 'D', ...secretRef },
    ]);
    expect(redactEnvList('not a list')).toBe('not a list');
  });

  it('redactTemplateEnv finds templates anywhere (an object, a list, {items}) and copies only what it changes', () => {
    const a = fn([{ name: 'A', value: 'pw' }]);
    const b = fn([{ name: 'D', ...secretRef }]);
    const other = { kind: 'Environment', spec: { image: 'x' } };
    const answer = { items: [a, b, other], resourceVersion: '7' };
    const out = redactTemplateEnv(answer) as typeof answer;
    expect(out.items[0]).toEqual(fn([{ name: 'A', value: REDACTED }]));
    expect(out.items[1]).toBe(b);
    expect(out.items[2]).toBe(other);
    expect(a.spec.template.env[0]).toEqual({ name: 'A', value: 'pw' }); // the input is not touched
    expect(redactTemplateEnv({ spec: { template: { env: [{ name: 'X', value: 'y' }] } } })).toEqual({ spec: { template: { env: [{ name: 'X', value: REDACTED }] } } });
    for (const v of [null, 3, 'text', [1, 2]]) expect(redactTemplateEnv(v)).toEqual(v);
  });

  it('audit input: env values redacted wherever an env list is, Secret references named, tokens still hidden', () => {
    const input = { manifest: fn([{ name: 'DB_PASSWORD', value: 'hunter2' }, { name: 'MODE', value: 'x' }, { name: 'K', ...secretRef }]), resourceVersion: '3' };
    const stored = JSON.stringify(redactInput(input));
    expect(stored).not.toContain('hunter2');
    expect(stored).toContain('"name":"DB_PASSWORD","value":"[redacted]"');
    expect(stored).toContain('"secretKeyRef":{"name":"shop-keys","key":"api-key"}');
    expect(redactInput({ token: 't', urlSecretRef: { name: 'r', key: 'url' } })).toEqual({ token: REDACTED, urlSecretRef: { name: 'r', key: 'url' } });
  });
});
