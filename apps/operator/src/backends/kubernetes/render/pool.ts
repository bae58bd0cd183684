import type { Environment } from '@orrery/spec';
import { COMPONENT_LABEL, ENVIRONMENT_LABEL, MANAGED_BY, type Manifest, childName, ownerReferences } from './labels.ts';
import { RUNTIME_PORT } from './revision-children.ts';
import { runtimeImageFor } from './runtime-image.ts';

const poolLabels = (env: Environment): Record<string, string> => ({
  ...MANAGED_BY,
  [ENVIRONMENT_LABEL]: env.metadata.name,
  [COMPONENT_LABEL]: 'pool',
});

/** Identity of the generic workers: they hold no function's secrets until specialized. */
export function renderPoolServiceAccount(env: Environment): Manifest {
  return {
    apiVersion: 'v1',
    kind: 'ServiceAccount',
    metadata: {
      name: childName('orrery-pool', env.metadata.name),
      namespace: env.metadata.namespace,
      labels: poolLabels(env),
      ownerReferences: ownerReferences({ kind: 'Environment', metadata: env.metadata }),
    },
    automountServiceAccountToken: false,
  };
}

/**
 * The pool executor's warm generic workers of one Environment. Unlike revision Deployments the
 * replica count is the spec's `poolSize`, so the operator applies it.
 */
export function renderPoolDeployment(env: Environment, runtimeImage?: string): Manifest {
  const labels = poolLabels(env);
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      name: childName('orrery-pool', env.metadata.name),
      namespace: env.metadata.namespace,
      labels,
      ownerReferences: ownerReferences({ kind: 'Environment', metadata: env.metadata }),
    },
    spec: {
      replicas: env.spec.poolSize,
      selector: { matchLabels: { [ENVIRONMENT_LABEL]: env.metadata.name, [COMPONENT_LABEL]: 'pool' } },
      template: {
        metadata: { labels },
        spec: {
          serviceAccountName: childName('orrery-pool', env.metadata.name),
          automountServiceAccountToken: false,
          securityContext: { runAsNonRoot: true, runAsUser: 65532, seccompProfile: { type: 'RuntimeDefault' } },
          containers: [
            {
              name: 'runtime',
              image: runtimeImageFor(env, runtimeImage),
              args: ['--port', String(RUNTIME_PORT), '--pool', '--environment', env.metadata.name, '--work-dir', '/tmp/orrery'],
              ports: [{ name: 'http', containerPort: RUNTIME_PORT }],
              readinessProbe: { httpGet: { path: '/readyz', port: 'http' }, periodSeconds: 2 },
              ...(env.spec.resources ? { resources: env.spec.resources } : {}),
              securityContext: {
                allowPrivilegeEscalation: false,
                readOnlyRootFilesystem: true,
                capabilities: { drop: ['ALL'] },
              },
              volumeMounts: [{ name: 'tmp', mountPath: '/tmp' }],
            },
          ],
          volumes: [{ name: 'tmp', emptyDir: {} }],
        },
      },
    },
  };
}

/** Headless Service: the executor addresses pool workers one by one to specialize them. */
export function renderPoolService(env: Environment): Manifest {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: {
      name: childName('orrery-pool', env.metadata.name),
      namespace: env.metadata.namespace,
      labels: poolLabels(env),
      ownerReferences: ownerReferences({ kind: 'Environment', metadata: env.metadata }),
    },
    spec: {
      clusterIP: 'None',
      selector: { [ENVIRONMENT_LABEL]: env.metadata.name, [COMPONENT_LABEL]: 'pool' },
      ports: [{ name: 'http', port: RUNTIME_PORT, targetPort: 'http', protocol: 'TCP' }],
    },
  };
}

export function renderPoolChildren(env: Environment, runtimeImage?: string): Manifest[] {
  return [renderPoolServiceAccount(env), renderPoolDeployment(env, runtimeImage), renderPoolService(env)];
}
