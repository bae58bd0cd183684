/**
 * The chart's queue-trigger values (operator.queue, networkPolicy.queue; docs/operations.md
 * "Queue triggers"), rendered by the real `helm template`: the broker URL becomes --queue-url, its
 * credentials a mounted Secret file (never an argument), the operator gets egress to the broker
 * only when there is one, and helm refuses a URL that carries credentials.
 */
import { describe, expect, it } from 'vitest';
import { appFlags, flagName } from './app-flags.ts';
import { scanCredentials } from './credential-args-scan.ts';
import { helmTemplate, type K8sObject } from './helm-template.ts';

const REQUIRED = { postgres: { existingSecret: 'orrery-postgres' }, state: { masterKey: { existingSecret: 'orrery-state-key' } } };
const operatorOf = (objects: K8sObject[]) => objects.find((o) => o.kind === 'Deployment' && o.metadata.name === 'orrery-operator')!;
const egressPortsOf = (objects: K8sObject[]) =>
  (objects.find((o) => o.kind === 'NetworkPolicy' && o.metadata.name === 'orrery-operator')!.spec.egress as Array<{ ports?: Array<{ port: number }> }>).flatMap((e) => (e.ports ?? []).map((p) => p.port));

describe('chart: queue triggers', () => {
  it('without operator.queue.url: no queue flag, no mount, no egress to a broker', () => {
    const { objects } = helmTemplate(REQUIRED);
    const pod = operatorOf(objects).spec.template.spec;
    expect((pod.containers[0].args as string[]).filter((a) => a.startsWith('--queue-'))).toEqual([]);
    expect((pod.volumes as Array<{ name: string }>).map((v) => v.name)).not.toContain('queue-credentials');
    expect(egressPortsOf(objects)).not.toContain(4222);
  });

  it('with a url and a credentials Secret: --queue-url, the Secret as a file, egress on the broker port', () => {
    const { objects } = helmTemplate({ ...REQUIRED, operator: { queue: { url: 'nats://nats.messaging:4222', credentialsSecret: 'orrery-nats', credentialsKey: 'orrery.creds' } }, networkPolicy: { queue: { cidrs: ['10.0.0.0/8'], port: 4222 } } });
    const deployment = operatorOf(objects);
    const pod = deployment.spec.template.spec;
    const args = pod.containers[0].args as string[];
    expect(args).toEqual(expect.arrayContaining(['--queue-url=nats://nats.messaging:4222', '--queue-credentials-file=/etc/orrery/queue/credentials']));
    // Flags the operator knows (its parser is strict: an unknown flag exits 2).
    const known = appFlags('apps/operator/src/trigger/queue/queue-flags.ts');
    expect(args.map(flagName).filter((f) => f?.startsWith('queue-') && !known.has(f))).toEqual([]);
    expect(pod.containers[0].volumeMounts).toContainEqual({ name: 'queue-credentials', mountPath: '/etc/orrery/queue', readOnly: true });
    expect(pod.volumes).toContainEqual({ name: 'queue-credentials', secret: { secretName: 'orrery-nats', defaultMode: 0o440, items: [{ key: 'orrery.creds', path: 'credentials' }] } });
    expect(scanCredentials([deployment])).toEqual([]);
    const policy = objects.find((o) => o.kind === 'NetworkPolicy' && o.metadata.name === 'orrery-operator')!;
    expect(policy.spec.egress).toContainEqual({ ports: [{ protocol: 'TCP', port: 4222 }], to: [{ ipBlock: { cidr: '10.0.0.0/8' } }] });
  });

  it('a url without credentials needs no Secret', () => {
    const args = operatorOf(helmTemplate({ ...REQUIRED, operator: { queue: { url: 'nats://a:4222,nats://b:4222' } } }).objects).spec.template.spec.containers[0].args as string[];
    expect(args).toContain('--queue-url=nats://a:4222,nats://b:4222');
    expect(args.some((a) => a.startsWith('--queue-credentials-file'))).toBe(false);
  });

  it('helm refuses a url with credentials in it before rendering anything', () => {
    expect(() => helmTemplate({ ...REQUIRED, operator: { queue: { url: 'nats://user:hunter2@nats:4222' } } })).toThrow(/queue\/url/);
    expect(() => helmTemplate({ ...REQUIRED, operator: { queue: { url: 'http://nats:4222' } } })).toThrow(/queue\/url/);
  });
});
