import { describe, expect, it } from 'vitest';
import { UsageError } from '../../../wiring/command-line.ts';
import { type KubeOperatorConfig, parseKubeConfig } from './kube-config.ts';

const parse = (...args: string[]) => parseKubeConfig(args, {}) as KubeOperatorConfig;

describe('parseKubeConfig', () => {
  it('has the documented defaults: in-cluster, all namespaces, no webhook, router pods by label', () => {
    const c = parse();
    expect(c).toMatchObject({
      host: '127.0.0.1',
      port: 0,
      cluster: { server: undefined, kubeconfig: undefined },
      namespace: undefined,
      lease: { namespace: 'orrery-system', name: 'orrery-operator', durationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 },
      webhook: undefined,
      registryImage: 'orrery/registry:latest',
      progressDeadlineSeconds: undefined,
      routerPods: { namespace: 'orrery-system', labelSelector: 'app.kubernetes.io/component=router', adminPort: 9090 },
      poolIdleTimeoutMs: 120_000,
    });
    expect(c.secrets).toEqual({ others: [], storeToken: undefined, adminToken: undefined, masterKey: undefined, registryMasterKey: undefined, databasePassword: undefined });
  });

  it('--help is asked for before anything is validated', () => {
    expect(parseKubeConfig(['--help', '--lease-duration-seconds', '0'], {})).toBe('help');
  });

  it('reads the webhook, Secret references with their default keys, and the default RegistryCluster', () => {
    const c = parse('--webhook-port', '9443', '--webhook-cert-secret', 'wh-tls', '--webhook-service', 'orrery-webhook', '--webhook-configuration', 'a', '--webhook-configuration', 'b', '--store-token-secret', 'tok', '--generate-secret', 'pg/password', '--default-registry-cluster', 'orrery', '--progress-deadline', '10m', '--router-namespace', 'edge');
    expect(c.webhook).toEqual({ host: '127.0.0.1', port: 9443, certFiles: undefined, certSecret: { name: 'wh-tls', service: 'orrery-webhook', configurations: ['a', 'b'] } });
    expect(c.secrets.storeToken).toEqual({ flag: 'store-token-secret', text: 'tok', ref: { name: 'tok', key: 'token' } });
    expect(c.secrets.others).toEqual([{ flag: 'generate-secret', text: 'pg/password', ref: { name: 'pg', key: 'password' } }]);
    expect(c.defaultRegistryCluster).toEqual({ name: 'orrery', spec: {} });
    expect(c.progressDeadlineSeconds).toBe(600);
    expect(c.routerPods.namespace).toBe('edge');
  });

  it('a previous registry key may rotate from the key in --registry-master-key-secret', () => {
    expect(parse('--registry-master-key-secret', 'reg', '--previous-registry-master-key-file', 'old').registryAuth.previousMasterKeyFile).toBe('old');
  });

  it.each([
    [['--backend', 'kubernetes'], /--backend/],
    [['--lease-duration-seconds', '0'], '--lease-duration-seconds must be a positive number of seconds'],
    [['--retry-period-seconds', 'x'], '--retry-period-seconds must be a positive number of seconds'],
    [['--webhook-cert-file', 'tls.crt'], '--webhook-cert-file and --webhook-key-file go together'],
    [['--webhook-cert-secret', 's', '--webhook-cert-file', 'c', '--webhook-key-file', 'k'], '--webhook-cert-secret (the operator makes the certificate) and --webhook-cert-file (someone else does) exclude each other'],
    [['--webhook-cert-secret', 's'], '--webhook-cert-secret needs --webhook-service'],
    [['--admin-token-file', 'f', '--admin-token-secret', 's'], '--admin-token-file and --admin-token-secret exclude each other'],
    [['--store-token-secret', 'Not_A_Name'], '--store-token-secret: "Not_A_Name" is not a Secret reference'],
    [['--default-registry-cluster-spec', '[1]'], '--default-registry-cluster-spec'],
    [['--progress-deadline', '1500ms'], '--progress-deadline must be a whole number of seconds'],
    [['--router-admin-port', '70000'], '--router-admin-port must be a port number'],
    [['--database-password-secret', 'pg', '--database-url', 'not a url'], '--database-url is not a URL (postgres://USER@HOST:5432/DB)'],
    [['--previous-registry-master-key-file', 'old'], '--previous-registry-master-key-file needs --registry-master-key-file (the new key)'],
    [['--registry-url', 'registry:8500'], '--registry-url "registry:8500" is not an http(s) URL'],
    [['--pool-idle-timeout', '0s'], '--pool-idle-timeout must be a duration of at least 1s'],
    [['--autoscaler-max-scale-up-rate', '1'], '--autoscaler-max-scale-up-rate must be a number'],
  ])('%j is a usage error naming the flag', (args, message) => {
    expect(() => parseKubeConfig(args, {})).toThrow(UsageError);
    expect(() => parseKubeConfig(args, {})).toThrow(message);
  });
});
