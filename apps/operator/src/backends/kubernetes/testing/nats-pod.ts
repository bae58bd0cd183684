/**
 * NATS JetStream in a pod for the queue-trigger tests: the official `nats` image (run by the
 * process kubelet as Debian's nats-server), its store on an emptyDir, behind a Service `nats`.
 */
import type { KubeClient, KubeObject } from '../kube-client.ts';

type Any = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** Creates the pod and its Service; the URL the host reaches it at (the Service's cluster IP). */
export async function createNatsPod(client: KubeClient, namespace: string): Promise<string> {
  const labels = { app: 'nats' };
  await client.create({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'nats', namespace, labels },
    spec: {
      terminationGracePeriodSeconds: 5,
      containers: [
        {
          name: 'nats',
          image: 'nats:2.9',
          args: ['-js', '-sd', '/data'],
          ports: [{ name: 'client', containerPort: 4222 }],
          readinessProbe: { tcpSocket: { port: 4222 }, periodSeconds: 1 },
          volumeMounts: [{ name: 'data', mountPath: '/data' }],
        },
      ],
      volumes: [{ name: 'data', emptyDir: {} }],
    },
  });
  await client.create({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'nats', namespace }, spec: { selector: labels, ports: [{ name: 'client', port: 4222, targetPort: 'client' }] } });
  const svc = (await client.get<KubeObject & { spec: Any }>('v1', 'Service', namespace, 'nats'))!;
  return `nats://${svc.spec.clusterIP as string}:4222`;
}
