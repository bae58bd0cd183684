import { FUNCTION_LABEL } from '@orrery/spec';
import { COMPONENT_LABEL, MANAGED_BY, type Manifest } from '../render/labels.ts';
import { archiveFetchCommand } from './archive-fetch.ts';
import { buildCommand } from './build-wrapper.ts';
import {
  ARCHIVE_DIR,
  BUILD_KEY_ANNOTATION,
  BUILD_KEY_LABEL,
  BUILD_SHA256_ANNOTATION,
  BUILD_VOLUME_MOUNT,
  BUILDER_ANNOTATION,
  COMPONENT_BUILD,
  PACKAGE_ARCHIVE_KEY,
  PACKAGE_VOLUME_CLAIM,
  buildJobName,
  builtSubPath,
  packageConfigMapName,
} from './package-build-names.ts';

/** orrery-build inside the builder image (its WORKDIR is the repository layout, as the other images'). */
export const BUILDER_BIN = 'packages/builder/bin/orrery-build.mjs';
/** The builder's own cap on an archive (@orrery/builder PACKAGE_LIMITS.maxArchiveBytes). */
export const MAX_ARCHIVE_BYTES = 64 * 1024 * 1024;
/** The Job's deadline beyond the builder's own timeout: pulling the image, fetching, the wrapper. */
const DEADLINE_SLACK_SECONDS = 60;
/** The uid build and worker pods share, so workers can read what builds wrote (and nothing is root). */
export const PACKAGE_UID = 65532;

/** No ephemeral-storage request (nodes that do not report it could not schedule the pod): /tmp's emptyDir has a sizeLimit instead. */
export const DEFAULT_BUILD_RESOURCES = {
  requests: { cpu: '100m', memory: '256Mi' },
  limits: { cpu: '1', memory: '1Gi' },
};
const TMP_SIZE_LIMIT = '2Gi';

export interface BuildJobInput {
  namespace: string;
  sha256: string;
  /** The build key (64 hex): names the Job and the output folder. */
  key: string;
  builder: 'node' | 'python';
  /** `--builder-image`. */
  image: string;
  /** spec.template.source.package.main. */
  main?: string;
  /** spec.template.source.package.url; absent: the package store's ConfigMap. */
  url?: string;
  /** The builder's own timeout; the Job's activeDeadlineSeconds adds a minute. */
  timeoutSeconds: number;
  /** The Function that asked first (a label for people; the build belongs to no Function). */
  requestedBy: string;
  /** The package volume claim's uid: the Job is its child, so deleting the volume deletes the builds. */
  volumeUid?: string;
  resources?: typeof DEFAULT_BUILD_RESOURCES;
}

/**
 * The build Job of one (archive, builder) in a namespace: installs the package's dependencies
 * into the package volume's `built/<key>`. Once: backoffLimit 0 (a failed build is reported, not
 * retried blindly — delete the Job to build again), a deadline, no service account token, no
 * Secret, non-root with a read-only root filesystem, resource limits. The outcome is the pod's
 * termination message (build-wrapper.ts).
 */
export function renderBuildJob(i: BuildJobInput): Manifest {
  const archive = `${ARCHIVE_DIR}/${PACKAGE_ARCHIVE_KEY}`;
  const args = [
    '--archive', archive,
    '--sha256', i.sha256,
    '--runtime', i.builder,
    '--out', `${BUILD_VOLUME_MOUNT}/${builtSubPath(i.key)}`,
    '--timeout-seconds', String(i.timeoutSeconds),
    ...(i.main ? ['--main', i.main] : []),
  ];
  const labels = { ...MANAGED_BY, [COMPONENT_LABEL]: COMPONENT_BUILD, [BUILD_KEY_LABEL]: i.key.slice(0, 20), [FUNCTION_LABEL]: i.requestedBy };
  const securityContext = { allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } };
  // npm and pip want a writable HOME and cache; /tmp is the pod's own emptyDir.
  const env = [
    { name: 'HOME', value: '/tmp/home' },
    { name: 'npm_config_cache', value: '/tmp/npm-cache' },
    { name: 'npm_config_update_notifier', value: 'false' },
    { name: 'PIP_CACHE_DIR', value: '/tmp/pip-cache' },
    { name: 'PIP_DISABLE_PIP_VERSION_CHECK', value: '1' },
  ];
  const tmpMount = { name: 'tmp', mountPath: '/tmp' };
  const archiveMount = { name: 'archive', mountPath: ARCHIVE_DIR, readOnly: !i.url };
  const resources = i.resources ?? DEFAULT_BUILD_RESOURCES;
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: {
      name: buildJobName(i.key),
      namespace: i.namespace,
      labels,
      annotations: { [BUILD_KEY_ANNOTATION]: i.key, [BUILD_SHA256_ANNOTATION]: i.sha256, [BUILDER_ANNOTATION]: `${i.builder} ${i.image}` },
      ...(i.volumeUid
        ? { ownerReferences: [{ apiVersion: 'v1', kind: 'PersistentVolumeClaim', name: PACKAGE_VOLUME_CLAIM, uid: i.volumeUid, controller: false, blockOwnerDeletion: false }] }
        : {}),
    },
    spec: {
      backoffLimit: 0,
      activeDeadlineSeconds: i.timeoutSeconds + DEADLINE_SLACK_SECONDS,
      template: {
        metadata: { labels },
        spec: {
          restartPolicy: 'Never',
          automountServiceAccountToken: false,
          enableServiceLinks: false,
          securityContext: { runAsNonRoot: true, runAsUser: PACKAGE_UID, runAsGroup: PACKAGE_UID, fsGroup: PACKAGE_UID, seccompProfile: { type: 'RuntimeDefault' } },
          ...(i.url
            ? {
                initContainers: [
                  {
                    name: 'fetch',
                    image: i.image,
                    command: archiveFetchCommand(i.url, archive, MAX_ARCHIVE_BYTES),
                    resources,
                    securityContext,
                    terminationMessagePolicy: 'FallbackToLogsOnError',
                    volumeMounts: [archiveMount, tmpMount],
                  },
                ],
              }
            : {}),
          containers: [
            {
              name: 'build',
              image: i.image,
              command: buildCommand(BUILDER_BIN, args),
              env,
              resources,
              securityContext,
              terminationMessagePath: '/dev/termination-log',
              terminationMessagePolicy: 'FallbackToLogsOnError',
              volumeMounts: [
                archiveMount,
                { name: 'packages', mountPath: BUILD_VOLUME_MOUNT },
                tmpMount,
              ],
            },
          ],
          volumes: [
            i.url
              ? { name: 'archive', emptyDir: { sizeLimit: `${MAX_ARCHIVE_BYTES / 1024 / 1024}Mi` } }
              : { name: 'archive', configMap: { name: packageConfigMapName(i.sha256), items: [{ key: PACKAGE_ARCHIVE_KEY, path: PACKAGE_ARCHIVE_KEY }] } },
            { name: 'packages', persistentVolumeClaim: { claimName: PACKAGE_VOLUME_CLAIM } },
            { name: 'tmp', emptyDir: { sizeLimit: TMP_SIZE_LIMIT } },
          ],
        },
      },
    },
  };
}
