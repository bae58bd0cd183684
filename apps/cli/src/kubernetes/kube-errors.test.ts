import { StoreError } from '@orrery/store';
import { describe, expect, it } from 'vitest';
import { codeConfigMap } from './code-config-map.ts';
import { translateKubeError } from './kube-errors.ts';

const server = 'https://10.0.0.1:6443';

describe('API server answers as CLI errors', () => {
  it('a server-side apply conflict names each field and its manager and says how to take it', () => {
    const body = JSON.stringify({
      kind: 'Status',
      message: 'Apply failed with 1 conflict: conflict with "kubectl" using orrery.dev/v1alpha1: .spec.template.containerConcurrency',
      reason: 'Conflict',
      details: { causes: [{ reason: 'FieldManagerConflict', message: 'conflict with "kubectl" using orrery.dev/v1alpha1', field: '.spec.template.containerConcurrency' }] },
      code: 409,
    });
    const e = translateKubeError(409, body, server);
    expect(e).toBeInstanceOf(StoreError);
    expect(e).toMatchObject({ code: 'conflict', message: 'fields another field manager owns: .spec.template.containerConcurrency (owned by "kubectl"); take them over with --force-conflicts, or change them where they are managed' });
    expect(translateKubeError(409, { message: 'the object has been modified' }, server)).toMatchObject({ code: 'conflict', message: 'the object has been modified' });
  });

  it('an invalid object keeps the field paths and the reason code of CEL messages', () => {
    const e = translateKubeError(422, { message: 'Function.orrery.dev "x" is invalid', details: { causes: [{ field: 'spec.traffic', message: 'percents must sum to 100 (traffic_sum)' }, { field: '.spec.template.timeoutSeconds', message: 'must be <= 3600' }] } }, server) as StoreError;
    expect(e.code).toBe('invalid');
    expect(e.details).toEqual([
      { path: 'spec.traffic', message: 'percents must sum to 100 (traffic_sum)', reason: 'traffic_sum' },
      { path: 'spec.template.timeoutSeconds', message: 'must be <= 3600', reason: 'invalid' },
    ]);
  });

  it('missing CRDs, refused credentials and RBAC, and no answer say what to check', () => {
    expect(translateKubeError(404, { message: 'the server could not find the requested resource' }, server).message).toContain('are Orrery\'s CRDs installed');
    expect(translateKubeError(404, { message: 'functions.orrery.dev "x" not found' }, server)).toMatchObject({ code: 'not_found' });
    expect(translateKubeError(401, 'Unauthorized', server).message).toContain('did not accept the credentials');
    expect(translateKubeError(403, { message: 'functions.orrery.dev is forbidden: User "dev" cannot patch' }, server).message).toMatch(/^the Kubernetes API server refused: .*\(RBAC/);
    const none = translateKubeError(undefined, undefined, server, new Error('connect ECONNREFUSED'));
    expect(none).not.toBeInstanceOf(StoreError);
    expect(none.message).toBe('the Kubernetes API server at https://10.0.0.1:6443 did not answer (connect ECONNREFUSED): check --kubeconfig / --context / $KUBECONFIG');
  });
});

describe('the code ConfigMap of orrery deploy', () => {
  it('is named after the code, immutable, labelled for its function; the source references it', () => {
    const a = codeConfigMap('shop', 'cart', 'export default () => 1');
    expect(a.configMap).toEqual({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: expect.stringMatching(/^cart-code-[0-9a-f]{10}$/) as string, namespace: 'shop', labels: { 'orrery.dev/function': 'cart', 'app.kubernetes.io/managed-by': 'orrery-cli' } },
      immutable: true,
      data: { 'index.mjs': 'export default () => 1' },
    });
    expect(a.source).toEqual({ configMapRef: { name: a.configMap.metadata.name, key: 'index.mjs' } });
    expect(codeConfigMap('shop', 'cart', 'export default () => 1').configMap.metadata.name).toBe(a.configMap.metadata.name);
    expect(codeConfigMap('shop', 'cart', 'export default () => 2').configMap.metadata.name).not.toBe(a.configMap.metadata.name);
  });
});
