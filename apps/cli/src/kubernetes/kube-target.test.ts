import { describe, expect, it } from 'vitest';
import { kubeTarget } from './kube-target.ts';

const base = { flags: {}, env: {}, platformFile: false, serviceAccount: false };

describe('when the CLI talks to Kubernetes', () => {
  it('--kubeconfig / --context win over everything', () => {
    expect(kubeTarget({ ...base, flags: { kubeconfig: '/k', apiUrl: 'http://a' }, env: { ORRERY_API_URL: 'http://b' }, platformFile: true })).toEqual({ kubeconfig: '/k', inCluster: false });
    expect(kubeTarget({ ...base, flags: { context: 'prod' } })).toEqual({ context: 'prod', inCluster: false });
  });

  it('an explicit API or store, or a local platform here, beats $KUBECONFIG and in-cluster', () => {
    const kubeEnv = { KUBECONFIG: '/k', KUBERNETES_SERVICE_HOST: '10.0.0.1' };
    expect(kubeTarget({ ...base, flags: { apiUrl: 'http://a' }, env: kubeEnv, serviceAccount: true })).toBeUndefined();
    expect(kubeTarget({ ...base, flags: { storeUrl: 'http://s' }, env: kubeEnv })).toBeUndefined();
    expect(kubeTarget({ ...base, env: { ...kubeEnv, ORRERY_API_URL: 'http://a' } })).toBeUndefined();
    expect(kubeTarget({ ...base, env: { ...kubeEnv, ORRERY_STORE_URL: 'http://s' } })).toBeUndefined();
    expect(kubeTarget({ ...base, env: kubeEnv, platformFile: true })).toBeUndefined();
  });

  it('then $KUBECONFIG, then a pod\'s service account; nothing else', () => {
    expect(kubeTarget({ ...base, env: { KUBECONFIG: '/a:/b' } })).toEqual({ inCluster: false });
    expect(kubeTarget({ ...base, env: { KUBERNETES_SERVICE_HOST: '10.0.0.1' }, serviceAccount: true })).toEqual({ inCluster: true });
    expect(kubeTarget({ ...base, env: { KUBERNETES_SERVICE_HOST: '10.0.0.1' } })).toBeUndefined();
    expect(kubeTarget({ ...base, env: { HOME: '/root' } })).toBeUndefined();
  });
});
