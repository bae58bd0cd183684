/**
 * The chart's NetworkPolicies against the threat model of docs/security.md: who may open a
 * connection to whom. Evaluated by the rules a network plugin enforces (network-policy-eval.ts);
 * the test cluster runs no network plugin, so enforcement itself is the cluster's.
 */
import { describe, expect, it } from 'vitest';
import { helmTemplate } from './helm-template.ts';
import { allowed, type NetworkPolicy, type PodRef } from './network-policy-eval.ts';

const release = { name: 'orrery', namespace: 'orrery-system' };
const rendered = helmTemplate({
  postgres: { existingSecret: 'pg' },
  state: { masterKey: { existingSecret: 'key' } },
  console: { enabled: true },
  networkPolicy: { functionNamespaces: ['team-a', 'team-b'] },
});
const policies = rendered.objects.filter((o) => o.kind === 'NetworkPolicy') as unknown as NetworkPolicy[];

const component = (c: string): PodRef => ({ namespace: release.namespace, labels: { 'app.kubernetes.io/name': 'orrery', 'app.kubernetes.io/instance': 'orrery', 'app.kubernetes.io/component': c } });
const P = {
  router: component('router'),
  operator: component('operator'),
  statesvc: component('statesvc'),
  console: component('console'),
  registry: { namespace: release.namespace, labels: { 'orrery.dev/component': 'registry', 'orrery.dev/registry-cluster': 'registry' } },
  etcd: { namespace: release.namespace, labels: { 'orrery.dev/component': 'etcd', 'orrery.dev/registry-cluster': 'registry' } },
  workerA: { namespace: 'team-a', labels: { 'orrery.dev/component': 'worker', 'orrery.dev/function': 'shop' } },
  poolA: { namespace: 'team-a', labels: { 'orrery.dev/component': 'pool' } },
  specializedA: { namespace: 'team-a', labels: { 'orrery.dev/component': 'specialized', 'orrery.dev/function': 'cart' } },
  workerB: { namespace: 'team-b', labels: { 'orrery.dev/component': 'worker', 'orrery.dev/function': 'billing' } },
  /** Any other pod of a tenant, in a Function namespace. */
  tenantApp: { namespace: 'team-a', labels: { app: 'shop-frontend' } },
  /** Anything else on the pod network. */
  outsider: { namespace: 'elsewhere', labels: { app: 'x' } },
  ingressController: { namespace: 'ingress-nginx', labels: { 'app.kubernetes.io/name': 'ingress-nginx' } },
} satisfies Record<string, PodRef>;
type Who = keyof typeof P;

// [from, to, port, allowed, why] — the threat model, one row per trust decision.
const MODEL: Array<[Who, Who, number, boolean, string]> = [
  ['outsider', 'router', 8080, true, 'the router is the public entry for function traffic'],
  ['ingressController', 'router', 8080, true, 'the ingress controller forwards to the router'],
  ['outsider', 'router', 9090, false, 'the router admin port (stats, metrics) is for the operator and monitoring'],
  ['operator', 'router', 9090, true, 'the admin API asks every router for live counters'],
  ['operator', 'router', 8080, true, 'cron and queue triggers call Functions through the router (docs/triggers.md)'],
  ['outsider', 'workerA', 8080, false, 'function workers are reached only through the router'],
  ['tenantApp', 'workerA', 8080, false, 'not even from their own namespace: the router enforces traffic splits and concurrency'],
  ['workerB', 'workerA', 8080, false, 'one function cannot call another function’s workers directly'],
  ['workerA', 'poolA', 8080, false, 'a function cannot reach warm pool workers (it could try to specialize them)'],
  ['router', 'workerA', 8080, true, 'the router proxies requests'],
  ['router', 'specializedA', 8080, true, 'and to specialized pool pods'],
  ['operator', 'poolA', 8080, true, 'the operator specializes warm pool pods'],
  ['workerA', 'statesvc', 8080, true, 'functions keep state (token-scoped)'],
  ['specializedA', 'statesvc', 8080, true, 'so do specialized pool pods'],
  ['tenantApp', 'statesvc', 8080, false, 'state is for function workers only'],
  ['outsider', 'statesvc', 8080, false, 'nor anyone else'],
  ['workerA', 'registry', 8080, true, 'workers register themselves (registration credential required)'],
  ['outsider', 'registry', 8080, true, 'the registry public API is open to the pod network by design: reads are public, writes need a credential or write token'],
  ['workerA', 'registry', 9091, false, 'the registry admin listener is never exposed'],
  ['workerA', 'etcd', 2379, false, 'etcd is reached only by the registry and the operator'],
  ['outsider', 'etcd', 2379, false, 'etcd is not on the pod network for anyone else'],
  ['registry', 'etcd', 2379, true, 'the registry stores instances in etcd'],
  ['operator', 'etcd', 2379, true, 'the operator manages membership'],
  ['etcd', 'etcd', 2380, true, 'members replicate'],
  ['workerA', 'operator', 8080, false, 'functions cannot call the store, autoscaler or executor APIs'],
  ['tenantApp', 'operator', 8080, false, 'nor can other pods'],
  ['router', 'operator', 8080, true, 'routers read resources and report stats'],
  ['statesvc', 'operator', 8080, true, 'statesvc reads keyspace declarations'],
  ['console', 'operator', 8080, true, 'the console calls the admin API'],
  ['outsider', 'operator', 9443, true, 'the webhook port is open (the API server’s address cannot be selected portably), TLS only'],
  ['outsider', 'console', 3000, true, 'the console is served to users through the ingress (it authenticates them)'],
];

describe('NetworkPolicies against the threat model', () => {
  it('renders a policy for every component and for the workers in each Function namespace', () => {
    expect(policies.map((p) => `${p.metadata.namespace}/${p.metadata.name}`).sort()).toEqual(
      expect.arrayContaining(['orrery-system/orrery-operator', 'orrery-system/orrery-router', 'orrery-system/orrery-statesvc', 'orrery-system/orrery-registry', 'orrery-system/orrery-etcd', 'team-a/orrery-function-workers', 'team-b/orrery-function-workers']),
    );
  });

  it.each(MODEL)('%s → %s:%i allowed=%s (%s)', (from, to, port, want) => {
    expect(allowed(policies, P[from], P[to], port)).toBe(want);
  });
});
