/**
 * Renders the chart with the real `helm template` and checks the manifests as objects: they
 * parse, refer to each other consistently, every pod is hardened, and the apps understand the
 * flags and environment variables the chart gives them.
 */
import { describe, expect, it } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SPECIALIZED_COMPONENT } from '../../../apps/operator/src/backends/kubernetes/kube-pool-executor.ts';
import { DEFAULT_RUNTIME_IMAGE } from '../../../apps/operator/src/backends/kubernetes/render/runtime-image.ts';
import { appEnvReads, envReads } from './app-env.ts';
import { appFlags, declaredFlags, flagName } from './app-flags.ts';
import { repoRoot } from './chart-files.ts';
import { helmNotes, helmTemplate, type K8sObject } from './helm-template.ts';

const REQUIRED = { postgres: { existingSecret: 'orrery-postgres' }, state: { masterKey: { existingSecret: 'orrery-state-key' } } };
const EVERYTHING = {
  ...REQUIRED,
  redis: { existingSecret: 'orrery-redis' },
  registry: { url: 'http://registry-public:8080', tokens: { existingSecret: 'orrery-registry-tokens' } },
  store: { token: { existingSecret: 'orrery-store-token' } },
  admin: { token: { existingSecret: 'orrery-admin-token' }, users: { existingSecret: 'orrery-admin-users' } },
  router: { ingress: { enabled: true, className: 'nginx' }, registryNamespaces: ['default', 'team-a'], publicUrl: 'https://fn.example.com' },
  operator: { watchNamespace: 'team-a' },
  statesvc: { idempotencyRetention: '48h', changes: { retention: '30m', retentionEvents: 0, maxStreams: 20, heartbeat: '5s' } },
  console: { ingress: { enabled: true } },
  webhook: { certManager: { enabled: true, issuerRef: { name: 'orrery-ca' } } },
};

const objects = (values: Record<string, unknown>): K8sObject[] => helmTemplate(values).objects;

const all = objects(EVERYTHING);
const minimal = objects(REQUIRED);
const ofKind = (objs: K8sObject[], kind: string) => objs.filter((o) => o.kind === kind);
const named = (objs: K8sObject[], kind: string, name: string) => objs.find((o) => o.kind === kind && o.metadata.name === name);
const matches = (selector: Record<string, string>, labels: Record<string, string> | undefined) =>
  Object.entries(selector).every(([k, v]) => labels?.[k] === v);

describe('rendered chart', () => {
  it.each([['every option on', all], ['only the required values', minimal]])('parses into named, namespaced objects (%s)', (_label, objs) => {
    expect(objs.length).toBeGreaterThan(25);
    const keys = objs.map((o) => `${o.kind}/${o.metadata.namespace ?? ""}/${o.metadata.name}`);
    expect(new Set(keys).size).toBe(keys.length);
    for (const o of objs) {
      expect(o.apiVersion, `${o.kind} ${o.metadata.name}`).toMatch(/^([a-z0-9.-]+\/)?v\d/);
      expect(o.metadata.name).toMatch(/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/);
      const clusterScoped = /^(ClusterRole|ClusterRoleBinding|ValidatingWebhookConfiguration|MutatingWebhookConfiguration)$/.test(o.kind);
      // The function workers' NetworkPolicy lives in the Functions' namespaces.
      const inFunctionNamespace = o.kind === 'NetworkPolicy' && o.metadata.name === 'orrery-function-workers';
      if (!inFunctionNamespace) expect(o.metadata.namespace, `${o.kind} ${o.metadata.name}`).toBe(clusterScoped ? undefined : 'orrery-system');
      expect(o.metadata.labels?.['app.kubernetes.io/part-of']).toBe('orrery');
    }
  });

  it('renders the expected set of workloads with default replicas', () => {
    const replicas = Object.fromEntries(ofKind(all, 'Deployment').map((d) => [d.metadata.name, d.spec.replicas]));
    expect(replicas).toEqual({ 'orrery-operator': 2, 'orrery-statesvc': 2, 'orrery-router': 2, 'orrery-console': 1 });
  });

  it.each(ofKind(all, 'Deployment').map((d) => [d.metadata.name, d]))('%s: pod and containers are hardened, probed and sized', (_name, d) => {
    const pod = d.spec.template.spec;
    expect(matches(d.spec.selector.matchLabels, d.spec.template.metadata.labels)).toBe(true);
    expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } });
    expect(pod.securityContext.runAsUser).toBeGreaterThan(0);
    expect(named(all, 'ServiceAccount', pod.serviceAccountName)).toBeDefined();
    const volumes = new Set((pod.volumes as Array<{ name: string }>).map((v) => v.name));
    for (const c of pod.containers) {
      expect(c.securityContext).toMatchObject({
        runAsNonRoot: true,
        readOnlyRootFilesystem: true,
        allowPrivilegeEscalation: false,
        capabilities: { drop: ['ALL'] },
        seccompProfile: { type: 'RuntimeDefault' },
      });
      expect(c.image).toMatch(/^orrery\/[a-z]+:0\.1\.0$/);
      expect(c.livenessProbe.httpGet.path).toBe('/healthz');
      expect(c.readinessProbe.httpGet.path).toBe('/readyz');
      const portNames = (c.ports as Array<{ name: string }>).map((p) => p.name);
      expect(portNames).toContain(c.livenessProbe.httpGet.port);
      expect(portNames).toContain(c.readinessProbe.httpGet.port);
      expect(c.resources.requests).toMatchObject({ cpu: expect.anything(), memory: expect.anything() });
      expect(c.resources.limits).toMatchObject({ cpu: expect.anything(), memory: expect.anything() });
      for (const m of c.volumeMounts) expect(volumes, m.name).toContain(m.name);
      expect(c.volumeMounts).toContainEqual({ name: 'tmp', mountPath: '/tmp' });
    }
  });

  it('every Service and PodDisruptionBudget selects a rendered Deployment and names real container ports', () => {
    const deployments = ofKind(all, 'Deployment');
    for (const svc of ofKind(all, 'Service')) {
      const target = deployments.find((d) => matches(svc.spec.selector, d.spec.template.metadata.labels));
      expect(target, svc.metadata.name).toBeDefined();
      const portNames = target!.spec.template.spec.containers.flatMap((c: { ports: Array<{ name: string }> }) => c.ports.map((p) => p.name));
      for (const p of svc.spec.ports) expect(portNames, `${svc.metadata.name} ${p.name}`).toContain(p.targetPort);
    }
    for (const pdb of ofKind(all, 'PodDisruptionBudget')) {
      expect(deployments.some((d) => matches(pdb.spec.selector.matchLabels, d.spec.template.metadata.labels)), pdb.metadata.name).toBe(true);
    }
  });

  it('every binding refers to a rendered role and service account', () => {
    for (const b of [...ofKind(all, 'ClusterRoleBinding'), ...ofKind(all, 'RoleBinding')]) {
      expect(named(all, b.roleRef.kind, b.roleRef.name), b.metadata.name).toBeDefined();
      for (const s of b.subjects) expect(named(all, 'ServiceAccount', s.name)).toBeDefined();
    }
  });

  it('wires the webhook: service on 443 to the operator webhook port, TLS Secret mounted, CA injected', () => {
    const operator = named(all, 'Deployment', 'orrery-operator')!;
    const container = operator.spec.template.spec.containers[0];
    const tlsVolume = operator.spec.template.spec.volumes.find((v: { name: string }) => v.name === 'webhook-tls');
    expect(tlsVolume.secret.secretName).toBe('orrery-webhook-tls');
    expect(named(all, 'Certificate', 'orrery-webhook-tls')?.spec.secretName).toBe('orrery-webhook-tls');
    for (const kind of ['ValidatingWebhookConfiguration', 'MutatingWebhookConfiguration']) {
      const config = named(all, kind, 'orrery-webhook')!;
      expect(config.metadata.annotations?.['cert-manager.io/inject-ca-from']).toBe('orrery-system/orrery-webhook-tls');
      const hook = config.webhooks[0];
      expect(hook).toMatchObject({ sideEffects: 'None', admissionReviewVersions: ['v1'], failurePolicy: 'Fail' });
      const svc = named(all, 'Service', hook.clientConfig.service.name)!;
      expect(svc.spec.ports).toContainEqual(expect.objectContaining({ port: 443, targetPort: 'webhook' }));
      expect(container.ports).toContainEqual(expect.objectContaining({ name: 'webhook', containerPort: 9443 }));
    }
  });

  it('passes secrets by reference only: Postgres, Redis and tokens come from secretKeyRef or mounted files', () => {
    const text = JSON.stringify(all);
    expect(text).not.toMatch(/postgres:\/\/|rediss?:\/\//);
    const router = named(all, 'Deployment', 'orrery-router')!.spec.template.spec.containers[0];
    expect(router.args).toEqual(expect.arrayContaining(['--registry-namespace=default', '--registry-namespace=team-a']));
    expect(router.env).toContainEqual({ name: 'ORRERY_REDIS_URL', valueFrom: { secretKeyRef: { name: 'orrery-redis', key: 'url' } } });
    expect(router.args).toContain('--registry-token-file=/etc/orrery/registry-token/token');
    expect(router.volumeMounts).toContainEqual({ name: 'registry-token', mountPath: '/etc/orrery/registry-token', readOnly: true });
    const registryToken = named(all, 'Deployment', 'orrery-router')!.spec.template.spec.volumes.find((v: { name: string }) => v.name === 'registry-token');
    expect(registryToken.secret).toEqual({ secretName: 'orrery-registry-tokens', defaultMode: 0o440, items: [{ key: 'replication-token', path: 'token' }] });
    for (const name of ['orrery-statesvc', 'orrery-operator']) {
      const c = named(all, 'Deployment', name)!.spec.template.spec.containers[0];
      expect(c.env, name).toContainEqual({ name: 'DATABASE_URL', valueFrom: { secretKeyRef: { name: 'orrery-postgres', key: 'url' } } });
    }
    // Issue 20 item 5: no Secret-backed variable is expanded into a command line (argv is public
    // on the node: ps, /proc/<pid>/cmdline); the apps read them from the environment.
    for (const objs of [all, minimal]) {
      for (const d of ofKind(objs, 'Deployment')) {
        for (const c of d.spec.template.spec.containers as Array<{ args?: string[]; env?: Array<{ name: string; valueFrom?: { secretKeyRef?: unknown } }> }>) {
          const secretVars = (c.env ?? []).filter((e) => e.valueFrom?.secretKeyRef).map((e) => e.name);
          for (const v of secretVars) expect((c.args ?? []).filter((a) => a.includes(`$(${v})`)), `${d.metadata.name}: $(${v})`).toEqual([]);
          expect((c.args ?? []).filter((a) => /^--(redis|database)-url/.test(a)), d.metadata.name).toEqual([]);
        }
      }
    }
  });

  it('routers and statesvc get every token and key as a read-only file of a mounted Secret, none through the environment', () => {
    const ownRegistry = objects({ ...REQUIRED, registry: { url: 'http://registry-public:8080', tokens: { existingSecret: 'mine', routerTokenKey: 'watch' } } });
    for (const [label, objs] of [['every option on', all], ['only the required values', minimal], ['own registry token', ownRegistry]] as const) {
      for (const name of ['orrery-router', 'orrery-statesvc']) {
        const pod = named(objs, 'Deployment', name)!.spec.template.spec;
        const c = pod.containers[0];
        const where = `${label}: ${name}`;
        // Only connection URLs (Postgres, Redis) and the passwords expanded into them come from secretKeyRef.
        const secretEnv = ((c.env ?? []) as Array<{ name: string; valueFrom?: { secretKeyRef?: unknown } }>).filter((e) => e.valueFrom?.secretKeyRef).map((e) => e.name);
        expect(secretEnv.filter((n) => !/^(DATABASE_URL|POSTGRES_PASSWORD|ORRERY_REDIS_URL|REDIS_PASSWORD)$/.test(n)), where).toEqual([]);
        expect(((c.env ?? []) as Array<{ name: string }>).map((e) => e.name).filter((n) => /TOKEN|KEY/.test(n)), where).toEqual([]);
        // Every Secret volume is mounted read-only and readable by the pod's group only.
        const secretVolumes = (pod.volumes as Array<{ name: string; secret?: { defaultMode: number } }>).filter((v) => v.secret);
        expect(secretVolumes.length, where).toBeGreaterThanOrEqual(2);
        for (const v of secretVolumes) {
          expect(v.secret!.defaultMode, `${where} ${v.name}`).toBe(0o440);
          expect(c.volumeMounts.find((m: { name: string }) => m.name === v.name), `${where} ${v.name}`).toMatchObject({ readOnly: true });
        }
        expect(pod.securityContext.fsGroup, where).toBe(c.securityContext.runAsGroup);
      }
    }
    const router = named(ownRegistry, 'Deployment', 'orrery-router')!.spec.template.spec;
    expect(router.containers[0].args).toContain('--registry-token-file=/etc/orrery/registry-token/token');
    expect(router.volumes.find((v: { name: string }) => v.name === 'registry-token').secret).toMatchObject({ secretName: 'mine', items: [{ key: 'watch', path: 'token' }] });
    // No registry token anywhere: no flag, no volume (the router would wait for a Secret nobody makes).
    const noToken = named(objects({ ...REQUIRED, registry: { url: 'http://registry-public:8080' } }), 'Deployment', 'orrery-router')!.spec.template.spec;
    expect((noToken.containers[0].args as string[]).filter((a) => a.startsWith('--registry-token-file'))).toEqual([]);
    expect(noToken.volumes.map((v: { name: string }) => v.name)).not.toContain('registry-token');
  });

  it('logLevel reaches every Orrery container as ORRERY_LOG_LEVEL; <component>.logLevel overrides it', { timeout: 60_000 }, () => {
    const levels = (objs: K8sObject[]) =>
      Object.fromEntries(
        ofKind(objs, 'Deployment')
          .filter((d) => d.spec.template.spec.containers[0].image.startsWith('orrery/'))
          .flatMap((d) => (d.spec.template.spec.containers as Array<{ name: string; env?: Array<{ name: string; value?: string }> }>).map((c) => [c.name, c.env?.find((e) => e.name === 'ORRERY_LOG_LEVEL')?.value])),
      );
    // The console reads no log level (it has no packages/log logger), so it gets none.
    expect(levels(minimal)).toEqual({ operator: 'info', statesvc: 'info', router: 'info', console: undefined });
    expect(levels(objects({ ...REQUIRED, logLevel: 'warn', router: { logLevel: 'debug' } }))).toEqual({ operator: 'warn', statesvc: 'warn', router: 'debug', console: undefined });
    expect(levels(objects({ ...REQUIRED, operator: { logLevel: 'trace' } }))).toMatchObject({ operator: 'trace', statesvc: 'info', router: 'info' });
    expect(() => helmTemplate({ ...REQUIRED, logLevel: 'verbose' })).toThrow(/\/logLevel/);
    expect(() => helmTemplate({ ...REQUIRED, statesvc: { logLevel: 'loud' } })).toThrow(/\/statesvc\/logLevel/);
  });

  it('tracing.otlpEndpoint reaches the operator, routers and statesvc as OTEL_EXPORTER_OTLP_ENDPOINT; unset, nothing', { timeout: 60_000 }, () => {
    const endpoints = (objs: K8sObject[]) =>
      Object.fromEntries(
        ofKind(objs, 'Deployment')
          .filter((d) => d.spec.template.spec.containers[0].image.startsWith('orrery/'))
          .flatMap((d) => (d.spec.template.spec.containers as Array<{ name: string; env?: Array<{ name: string; value?: string }> }>).map((c) => [c.name, c.env?.find((e) => e.name === 'OTEL_EXPORTER_OTLP_ENDPOINT')?.value])),
      );
    expect(endpoints(minimal)).toEqual({ operator: undefined, statesvc: undefined, router: undefined, console: undefined });
    const url = 'http://otel-collector.observability:4318';
    expect(endpoints(objects({ ...REQUIRED, tracing: { otlpEndpoint: url } }))).toEqual({ operator: url, statesvc: url, router: url, console: undefined });
    expect(() => helmTemplate({ ...REQUIRED, tracing: { otlpEndpoint: 'collector:4318' } })).toThrow(/\/tracing\/otlpEndpoint/);
  });

  it('operator.progressDeadline reaches the operator as --progress-deadline (the progressDeadlineSeconds of deploy revisions)', { timeout: 60_000 }, () => {
    const deadline = (objs: K8sObject[]) => (named(objs, 'Deployment', 'orrery-operator')!.spec.template.spec.containers[0].args as string[]).filter((a) => a.startsWith('--progress-deadline'));
    expect(deadline(minimal)).toEqual(['--progress-deadline=600s']);
    expect(deadline(objects({ ...REQUIRED, operator: { progressDeadline: '3m' } }))).toEqual(['--progress-deadline=3m']);
    // Kubernetes takes whole seconds: the schema refuses what the operator would refuse at start.
    expect(() => helmTemplate({ ...REQUIRED, operator: { progressDeadline: '1500ms' } })).toThrow(/\/operator\/progressDeadline/);
    expect(() => helmTemplate({ ...REQUIRED, operator: { progressDeadline: '0s' } })).toThrow(/\/operator\/progressDeadline/);
  });

  it('operator.revisionGC reaches the operator as --revision-gc-keep and --revision-gc-min-age', { timeout: 60_000 }, () => {
    const gc = (objs: K8sObject[]) => (named(objs, 'Deployment', 'orrery-operator')!.spec.template.spec.containers[0].args as string[]).filter((a) => a.startsWith('--revision-gc'));
    expect(gc(minimal)).toEqual(['--revision-gc-keep=20', '--revision-gc-min-age=48h']);
    expect(gc(objects({ ...REQUIRED, operator: { revisionGC: { keep: 3, minAge: '0s' } } }))).toEqual(['--revision-gc-keep=3', '--revision-gc-min-age=0s']);
    expect(() => helmTemplate({ ...REQUIRED, operator: { revisionGC: { keep: -1, minAge: '1h' } } })).toThrow(/\/operator\/revisionGC\/keep/);
    expect(() => helmTemplate({ ...REQUIRED, operator: { revisionGC: { keep: 1, minAge: '2d' } } })).toThrow(/\/operator\/revisionGC\/minAge/);
  });

  it('the console reaches everything through the admin API the operator serves: ORRERY_API_URL, no database, no Kubernetes token', () => {
    for (const objs of [all, minimal]) {
      const pod = named(objs, 'Deployment', 'orrery-console')!.spec.template.spec;
      const env = pod.containers[0].env as Array<{ name: string; value?: string }>;
      expect(env).toContainEqual({ name: 'ORRERY_API_URL', value: 'http://orrery-operator.orrery-system.svc:8080' });
      expect(env.map((e) => e.name)).not.toContain('DATABASE_URL');
      expect(pod.automountServiceAccountToken).toBe(false);
      expect(pod.containers[0].args).toContain('--host=0.0.0.0');
    }
    // the URL names a real Service port of the operator
    const svc = named(all, 'Service', 'orrery-operator')!;
    expect(svc.spec.ports).toContainEqual(expect.objectContaining({ port: 8080 }));
  });

  it('the operator serves the store and admin API with tokens from mounted Secrets', () => {
    const pod = named(all, 'Deployment', 'orrery-operator')!.spec.template.spec;
    const c = pod.containers[0];
    expect(c.args).toEqual(expect.arrayContaining([
      '--store-token-file=/etc/orrery/store-token/token',
      '--admin-token-file=/etc/orrery/admin-token/token',
      '--users-file=/etc/orrery/admin-users/users',
      '--router-admin-port=9090',
    ]));
    // the live counters come from every router pod: the selector matches the router pods' labels
    const selector = (c.args as string[]).find((a) => a.startsWith('--router-pod-selector='))!.slice('--router-pod-selector='.length);
    const routerLabels = named(all, 'Deployment', 'orrery-router')!.spec.template.metadata.labels as Record<string, string>;
    for (const term of selector.split(',')) {
      const [k, v] = term.split('=');
      expect(routerLabels[k!], term).toBe(v);
    }
    const routerAdmin = named(all, 'Deployment', 'orrery-router')!.spec.template.spec.containers[0].ports.find((p: { name: string }) => p.name === 'admin');
    expect(routerAdmin.containerPort).toBe(9090);
    const secretOf = (volume: string) => pod.volumes.find((v: { name: string }) => v.name === volume)?.secret.secretName;
    expect([secretOf('store-token'), secretOf('admin-token'), secretOf('admin-users')]).toEqual(['orrery-store-token', 'orrery-admin-token', 'orrery-admin-users']);
    // the token the routers and statesvc present is the one the operator checks
    for (const name of ['orrery-router', 'orrery-statesvc']) {
      const volumes = named(all, 'Deployment', name)!.spec.template.spec.volumes;
      expect(volumes.find((v: { name: string }) => v.name === 'store-token').secret).toEqual(pod.volumes.find((v: { name: string }) => v.name === 'store-token').secret);
    }
    const plain = named(minimal, 'Deployment', 'orrery-operator')!.spec.template.spec.containers[0].args as string[];
    expect(plain.filter((a) => /token-file|users-file/.test(a))).toEqual([]);
  });

  it('function workers register where the routers watch; the pool executor may claim (update) and retire pods', () => {
    const args = named(all, 'Deployment', 'orrery-operator')!.spec.template.spec.containers[0].args as string[];
    const routerArgs = named(all, 'Deployment', 'orrery-router')!.spec.template.spec.containers[0].args as string[];
    expect(args).toContain('--registry-url=http://registry-public:8080');
    expect(routerArgs).toContain('--registry-url=http://registry-public:8080');
    // Cold requests of pool revisions go to the operator's executor (without it they waited forever).
    expect(routerArgs).toContain('--executor-url=http://orrery-operator.orrery-system.svc:8080');
    expect(args).toContain('--pool-idle-timeout=120s');
    // Without registry.url: the default RegistryCluster's Service (chart-defaults.test.ts).
    expect(named(minimal, 'Deployment', 'orrery-operator')!.spec.template.spec.containers[0].args).toContain('--registry-url=http://orrery-registry.orrery-system.svc:8080');
    const role = named(all, 'ClusterRole', 'orrery-operator')!;
    const podRule = role.rules.find((r: { resources: string[] }) => r.resources.includes('pods'));
    expect(podRule.verbs).toEqual(['get', 'list', 'watch', 'update', 'delete']);
    expect(role.rules.find((r: { resources: string[] }) => r.resources.includes('secrets')).verbs).toEqual(expect.arrayContaining(['get', 'create']));
  });

  it('one runtime image name: values → --runtime-image, the operator default and the Dockerfile agree', () => {
    const args = named(all, 'Deployment', 'orrery-operator')!.spec.template.spec.containers[0].args as string[];
    expect(args).toContain('--runtime-image=orrery/runtime:0.1.0');
    const repository = 'orrery/runtime';
    expect(DEFAULT_RUNTIME_IMAGE.split(':')[0]).toBe(repository);
    expect(existsSync(join(repoRoot, 'apps', 'runtime', 'Dockerfile'))).toBe(true);
    const withRegistry = objects({ ...REQUIRED, global: { imageRegistry: 'registry.example.com/' } });
    expect(named(withRegistry, 'Deployment', 'orrery-operator')!.spec.template.spec.containers[0].args).toContain('--runtime-image=registry.example.com/orrery/runtime:0.1.0');
  });

  it('only the operator holds Kubernetes permissions; the other pods mount no ServiceAccount token', () => {
    const bound = [...ofKind(all, 'ClusterRoleBinding'), ...ofKind(all, 'RoleBinding')].flatMap((b) => b.subjects.map((s: { name: string }) => s.name));
    expect(new Set(bound)).toEqual(new Set(['orrery-operator']));
    for (const name of ['orrery-router', 'orrery-statesvc', 'orrery-console']) {
      expect(named(all, 'Deployment', name)!.spec.template.spec.automountServiceAccountToken, name).toBe(false);
    }
  });

  it('points the routers and statesvc at the resource store, with the token as a mounted file', () => {
    for (const name of ['orrery-router', 'orrery-statesvc']) {
      const pod = named(all, 'Deployment', name)!.spec.template.spec;
      expect(pod.containers[0].args, name).toEqual(expect.arrayContaining(['--store-url=http://orrery-operator.orrery-system.svc:8080', '--store-token-file=/etc/orrery/store-token/token']));
      expect(pod.volumes).toContainEqual(expect.objectContaining({ name: 'store-token', secret: expect.objectContaining({ secretName: 'orrery-store-token' }) }));
      // Without store.token.existingSecret: the Secret the operator generates.
      const plain = named(minimal, 'Deployment', name)!.spec.template.spec;
      expect(plain.volumes).toContainEqual(expect.objectContaining({ name: 'store-token', secret: expect.objectContaining({ secretName: 'orrery-store-token' }) }));
    }
  });

  it('only statesvc and the operator get Postgres egress; only the router gets Redis egress; the console talks only to the operator', () => {
    const egressPorts = (np: K8sObject) => (np.spec.egress ?? []).flatMap((r: { ports?: Array<{ port: number }> }) => (r.ports ?? []).map((p) => p.port));
    const withPort = (port: number) => ofKind(all, 'NetworkPolicy').filter((np) => egressPorts(np).includes(port)).map((np) => np.metadata.name).sort();
    expect(withPort(5432)).toEqual(['orrery-operator', 'orrery-statesvc']);
    expect(withPort(443)).toEqual(['orrery-operator']);
    expect(egressPorts(named(all, 'NetworkPolicy', 'orrery-console')!).filter((p: number) => p !== 53)).toEqual([8080]);
    expect(withPort(6379)).toEqual(['orrery-router']);
    expect(ofKind(objects({ ...REQUIRED, redis: { inCluster: { enabled: false } } }), 'NetworkPolicy').filter((np) => egressPorts(np).includes(6379))).toEqual([]);
  });

  it("statesvc ingress admits only function workers and the console's API (the operator)", () => {
    const np = named(all, 'NetworkPolicy', 'orrery-statesvc')!;
    expect(np.spec.ingress).toHaveLength(1);
    expect(np.spec.ingress[0].from).toEqual([
      // Claimed pool pods are relabelled `specialized`: they keep their state access.
      { namespaceSelector: {}, podSelector: { matchExpressions: [{ key: 'orrery.dev/component', operator: 'In', values: ['worker', 'pool', SPECIALIZED_COMPONENT] }] } },
      { podSelector: { matchLabels: { 'app.kubernetes.io/name': 'orrery', 'app.kubernetes.io/instance': 'orrery', 'app.kubernetes.io/component': 'operator' } } },
    ]);
    expect(np.spec.ingress[0].ports).toEqual([{ protocol: 'TCP', port: 8080 }]);
  });

  it('function worker pods admit only the routers and the operator, on the worker port, in every Function namespace', () => {
    const policies = (objs: K8sObject[]) => ofKind(objs, 'NetworkPolicy').filter((np) => np.metadata.name === 'orrery-function-workers');
    // Defaults: `default`; the watched namespace is added; functionNamespaces lists more.
    expect(policies(minimal).map((np) => np.metadata.namespace)).toEqual(['default']);
    expect(policies(all).map((np) => np.metadata.namespace)).toEqual(['default', 'team-a']);
    const listed = objects({ ...REQUIRED, operator: { watchNamespace: 'team-a' }, networkPolicy: { functionNamespaces: ['team-a', 'team-b'] } });
    expect(policies(listed).map((np) => np.metadata.namespace)).toEqual(['team-a', 'team-b']);
    for (const np of policies(all)) {
      // The same pods statesvc admits: deploy workers, warm pool pods, claimed (specialized) pool pods.
      expect(np.spec.podSelector).toEqual({ matchExpressions: [{ key: 'orrery.dev/component', operator: 'In', values: ['worker', 'pool', SPECIALIZED_COMPONENT] }] });
      expect(np.spec.policyTypes).toEqual(['Ingress']);
      expect(np.spec.ingress).toEqual([
        {
          from: ['router', 'operator'].map((component) => ({
            namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'orrery-system' } },
            podSelector: { matchLabels: { 'app.kubernetes.io/name': 'orrery', 'app.kubernetes.io/instance': 'orrery', 'app.kubernetes.io/component': component } },
          })),
          ports: [{ protocol: 'TCP', port: 8080 }],
        },
      ]);
    }
    // They select the pods the operator renders, whatever their executor.
    const routerPods = named(all, 'Deployment', 'orrery-router')!.spec.template.metadata.labels;
    const operatorPods = named(all, 'Deployment', 'orrery-operator')!.spec.template.metadata.labels;
    for (const peer of policies(all)[0]!.spec.ingress[0].from as Array<{ podSelector: { matchLabels: Record<string, string> } }>) {
      expect([routerPods, operatorPods].some((labels) => matches(peer.podSelector.matchLabels, labels))).toBe(true);
    }
    // The routers and the operator may send there (their own egress rules).
    for (const name of ['orrery-router', 'orrery-operator']) {
      const egress = named(all, 'NetworkPolicy', name)!.spec.egress as Array<{ to?: Array<{ podSelector?: unknown }>; ports?: Array<{ port: number }> }>;
      expect(egress.some((r) => r.ports?.some((p) => p.port === 8080) && r.to?.some((t) => JSON.stringify(t.podSelector).includes('specialized'))), name).toBe(true);
    }
  });

  it('registry pods admit only the public port; etcd admits only registry, operator and peers', () => {
    const registry = named(all, 'NetworkPolicy', 'orrery-registry')!;
    expect(registry.spec.ingress.flatMap((r: { ports: Array<{ port: number }> }) => r.ports.map((p) => p.port))).toEqual([8080]);
    const etcd = named(all, 'NetworkPolicy', 'orrery-etcd')!;
    expect(etcd.spec.podSelector).toEqual({ matchLabels: { 'orrery.dev/component': 'etcd' } });
    expect(etcd.spec.ingress.flatMap((r: { from: unknown[] }) => r.from)).not.toContainEqual({ namespaceSelector: {} });
  });

  it("statesvc's change-feed and idempotency settings become its flags; unset, statesvc's defaults; a bad value is refused", () => {
    const args = (objs: K8sObject[]) => named(objs, 'Deployment', 'orrery-statesvc')!.spec.template.spec.containers[0].args as string[];
    expect(args(all)).toEqual(expect.arrayContaining(['--idempotency-retention=48h', '--changes-retention=30m', '--changes-retention-events=0', '--changes-max-streams=20', '--changes-heartbeat=5s']));
    expect(args(minimal).filter((a) => /^--(changes-|idempotency-)/.test(a))).toEqual([]);
    expect(() => helmTemplate({ ...REQUIRED, statesvc: { changes: { retention: '10 minutes' } } })).toThrow(/\/statesvc\/changes\/retention/);
    expect(() => helmTemplate({ ...REQUIRED, statesvc: { changes: { maxStreams: 0 } } })).toThrow(/\/statesvc\/changes\/maxStreams/);
  });

  it('statesvc accepts the previous master key only during a rotation', () => {
    const args = (objs: K8sObject[]) => named(objs, 'Deployment', 'orrery-statesvc')!.spec.template.spec.containers[0].args as string[];
    expect(args(minimal)).not.toContain('--previous-master-key-file=/etc/orrery/state-key/previous-master-key');
    const rotating = objects({ ...REQUIRED, state: { masterKey: { existingSecret: 'orrery-state-key', previousKey: 'previous-master-key' } } });
    expect(args(rotating)).toContain('--previous-master-key-file=/etc/orrery/state-key/previous-master-key');
    const volume = named(rotating, 'Deployment', 'orrery-statesvc')!.spec.template.spec.volumes.find((v: { name: string }) => v.name === 'state-key');
    expect(volume.secret.items).toEqual([
      { key: 'master-key', path: 'master-key' },
      { key: 'previous-master-key', path: 'previous-master-key' },
    ]);
  });

  it('switches optional parts off: console, NetworkPolicies, webhook', () => {
    const off = objects({ ...REQUIRED, console: { enabled: false }, networkPolicy: { enabled: false }, webhook: { enabled: false } });
    expect(off.filter((o) => o.metadata.name.includes('console'))).toEqual([]);
    expect(ofKind(off, 'NetworkPolicy')).toEqual([]);
    expect(off.filter((o) => /WebhookConfiguration$/.test(o.kind))).toEqual([]);
    expect(named(off, 'Deployment', 'orrery-operator')!.spec.template.spec.volumes.map((v: { name: string }) => v.name)).not.toContain('webhook-tls');
  });

  it('refuses fewer than two routers, and no Postgres at all', { timeout: 60_000 }, () => {
    // values.schema.json refuses it first; the template's own `fail` stays for --skip-schema-validation.
    expect(() => helmTemplate({ ...REQUIRED, router: { replicas: 1 } })).toThrow(/\/router\/replicas/);
    expect(() => helmTemplate({ ...REQUIRED, router: { replicas: 1 } }, undefined, ['--skip-schema-validation'])).toThrow(/router\.replicas must be at least 2/);
    expect(() => helmTemplate({ state: REQUIRED.state, postgres: { inCluster: { enabled: false } } })).toThrow(/postgres\.existingSecret is required/);
  });

  it('NOTES.txt tells what to do next', { timeout: 60_000 }, () => {
    const notes = helmNotes(REQUIRED);
    expect(notes).toContain('orrery-system');
    expect(notes).toContain('kubectl apply --server-side -f charts/orrery/crds/');
    expect(notes).toContain('NOT FOR PRODUCTION'); // the in-cluster Redis
    expect(notes).toContain('Webhook certificate: made by the operator');
    expect(notes).toContain('orrery-store-token, orrery-admin-token');
    expect(notes).toContain('the operator creates the RegistryCluster "orrery"');
    expect(helmNotes({ ...REQUIRED, redis: { inCluster: { enabled: false } }, registry: { cluster: { create: false } } })).toContain('registry.url is empty and registry.cluster.create is false');
    expect(helmNotes({ ...REQUIRED, redis: { inCluster: { enabled: false } } })).toContain('router replicas do\nnot share state');
    expect(helmNotes({ ...REQUIRED, webhook: { tls: { secretName: 'mine' } } })).toContain('webhook has no caBundle');
    expect(helmNotes(EVERYTHING)).not.toContain('RegistryCluster "orrery"');
    expect(helmNotes({ ...REQUIRED, store: { token: { existingSecret: 'orrery-store-token' } } })).not.toContain('orrery-store-token,');
  });
});

describe('flags the chart passes exist in the apps (their parsers are strict)', () => {
  // Where each app's parseArgs options are written (option tables spread into it included).
  const cases: Array<[string, string[], string[]]> = [
    // main.ts strips --backend before handing the rest to the Kubernetes backend's parser.
    [
      'orrery-operator',
      ['apps/operator/src/backends/kubernetes/wiring/kube-config.ts', 'apps/operator/src/wiring/shared-flags.ts', 'apps/operator/src/function/revision-gc-flags.ts', 'apps/operator/src/autoscaler/autoscaler-flags.ts', 'apps/operator/src/trigger/trigger-flags.ts', 'apps/operator/src/backends/kubernetes/package-build/package-build-flags.ts'],
      ['backend'],
    ],
    ['orrery-router', ['apps/router/src/wiring/router-config.ts'], []],
    ['orrery-statesvc', ['apps/statesvc/src/main.ts'], []],
    ['orrery-console', ['apps/console/bin/orrery-console.mjs'], []],
  ];
  it.each(cases)('%s', (deployment, sources, extra) => {
    const known = new Set([...sources.flatMap((s) => [...appFlags(s)]), ...extra]);
    expect(known.size).toBeGreaterThan(3);
    const args = named(all, 'Deployment', deployment)!.spec.template.spec.containers[0].args as string[];
    const unknown = args.map(flagName).filter((f): f is string => f !== undefined && !known.has(f));
    expect(unknown).toEqual([]);
    expect(args.length).toBeGreaterThan(1);
  });

  it('declaredFlags reads parseArgs option blocks', () => {
    const text = "options: {\n  host: { type: 'string', default: 'x' },\n  'admin-port': { type: 'string' },\n  help: { type: 'boolean', short: 'h' },\n}";
    expect([...declaredFlags(text)]).toEqual(['host', 'admin-port', 'help']);
    expect([...declaredFlags("options: { host: { type: 'string', default: 'x' }, 'api-url': { type: 'string' } }")]).toEqual(['host', 'api-url']);
    expect(flagName('--admin-port=9090')).toBe('admin-port');
    expect(flagName('--help')).toBe('help');
    expect(flagName('value')).toBeUndefined();
  });
});

describe('environment variables the chart sets are read by the apps', () => {
  const cases: Array<[string, string]> = [
    ['orrery-operator', 'operator'],
    ['orrery-router', 'router'],
    ['orrery-statesvc', 'statesvc'],
    ['orrery-console', 'console'],
  ];
  it.each(cases)('%s: every env var is read by apps/%s or expanded into its args or another variable as $(NAME)', (deployment, app) => {
    const reads = appEnvReads(app);
    for (const objs of [all, minimal]) {
      const c = named(objs, 'Deployment', deployment)!.spec.template.spec.containers[0];
      const envValues = ((c.env ?? []) as Array<{ value?: string }>).flatMap((e) => (e.value === undefined ? [] : [e.value]));
      const expanded = new Set([...((c.args ?? []) as string[]), ...envValues].flatMap((a) => [...a.matchAll(/\$\(([A-Z0-9_]+)\)/g)].map((m) => m[1]!)));
      const env = ((c.env ?? []) as Array<{ name: string }>).map((e) => e.name);
      expect(env.filter((n) => !reads.has(n) && !expanded.has(n)), deployment).toEqual([]);
      // and every $(NAME) in the args is defined, or Kubernetes passes it through literally
      expect([...expanded].filter((n) => !env.includes(n)), deployment).toEqual([]);
    }
  });

  it('envReads finds process.env reads (guards against a scanner that finds nothing)', () => {
    expect([...envReads("const a = process.env.ORRERY_API_URL; const b = process.env['PORT'];")]).toEqual(['ORRERY_API_URL', 'PORT']);
    expect(appEnvReads('console')).toContain('ORRERY_API_URL');
    expect(appEnvReads('operator')).toContain('DATABASE_URL');
    // packages/log reads the level from the environment it is handed, not process.env.X.
    expect([...envReads("const level = resolveLogLevel(args['log-level'], process.env);")]).toEqual(['ORRERY_LOG_LEVEL']);
    expect([...envReads("const level = resolveLogLevel(args['log-level'], {});")]).toEqual([]);
    for (const app of ['router', 'statesvc']) expect(appEnvReads(app), app).toContain('ORRERY_LOG_LEVEL');
    expect(readFileSync(join(repoRoot, 'apps', 'console', 'bin', 'orrery-console.mjs'), 'utf8')).toContain('ORRERY_API_URL');
  });
});
