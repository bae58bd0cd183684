/**
 * Registry write credentials on Kubernetes, rendered: a deploy revision's registration credential
 * (a Secret beside the state token's, mounted read-only, never in env or args) and a
 * RegistryCluster's auth Secret (registry master key, write tokens) with the registry's flags.
 */
import { type OrreryFunction, type Revision, RegistryClusterSchema, parseResource } from '@orrery/spec';
import { describe, expect, it } from 'vitest';
import { FUNCTION_LABEL, type Manifest } from './labels.ts';
import { renderRevisionChildren, renderRevisionDeployment } from './revision-children.ts';
import { AUTH_DIR, authSecretName, renderRegistryAuthSecret, renderRegistryDeployment } from './registry-cluster.ts';

function parse<T>(obj: unknown): T {
  const r = parseResource(obj);
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
  return r.resource as T;
}
const fn: OrreryFunction = parse({ apiVersion: 'orrery.dev/v1alpha1', kind: 'Function', metadata: { name: 'hello', namespace: 'team-a', uid: 'f' }, spec: { template: { source: { inline: 'x' } } } });
const rev = (executor = 'deploy'): Revision =>
  parse({
    apiVersion: 'orrery.dev/v1alpha1',
    kind: 'Revision',
    metadata: { name: 'hello-00001', namespace: 'team-a', uid: 'r', labels: { [FUNCTION_LABEL]: 'hello' } },
    spec: { function: 'hello', template: { source: { inline: 'x' }, executor } },
  });
const registration = { namespace: 'team-a', service: 'orrery.functions.team-a.hello.hello-00001', token: 'ab'.repeat(32) };
type Any = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const pod = (m: Manifest): Any => (m.spec as Any).template;

describe('a revision\'s registration credential', () => {
  it('is a Secret with the claims, mounted read-only and named by --registry-credential-file only', () => {
    const children = renderRevisionChildren({ fn, revision: rev(), registration, registryUrls: ['http://registry'] });
    const secret = children.find((c) => c.kind === 'Secret' && c.metadata.name === 'hello-00001-registry')!;
    expect(JSON.parse((secret as Any).stringData['.orrery-registry-credential'])).toEqual(registration);
    expect(secret.metadata.ownerReferences?.[0]).toMatchObject({ kind: 'Revision', name: 'hello-00001' });
    const dep = renderRevisionDeployment({ fn, revision: rev(), registration, registryUrls: ['http://registry'] });
    const c = pod(dep).spec.containers[0];
    expect(c.args.join(' ')).toContain('--registry-credential-file /var/orrery/registry/.orrery-registry-credential');
    expect(c.volumeMounts).toContainEqual({ name: 'registry', mountPath: '/var/orrery/registry', readOnly: true });
    expect(pod(dep).spec.volumes).toContainEqual({ name: 'registry', secret: { secretName: 'hello-00001-registry', defaultMode: 0o444 } });
    // The credential itself appears nowhere in the pod spec.
    expect(JSON.stringify(dep)).not.toContain(registration.token);
  });

  it('pool revisions get it at specialize, so they render no Secret; no key, no Secret', () => {
    expect(renderRevisionChildren({ fn, revision: rev('pool'), registration }).some((c) => c.metadata.name === 'hello-00001-registry')).toBe(false);
    const none = renderRevisionChildren({ fn, revision: rev() });
    expect(none.some((c) => c.metadata.name === 'hello-00001-registry')).toBe(false);
    expect(pod(none.find((c) => c.kind === 'Deployment')!).spec.containers[0].args.join(' ')).not.toContain('--registry-credential-file');
  });
});

describe("a RegistryCluster's write credentials", () => {
  const rc = RegistryClusterSchema.parse({ apiVersion: 'orrery.dev/v1alpha1', kind: 'RegistryCluster', metadata: { namespace: 'infra', name: 'reg', uid: 'u' }, spec: { replicas: 3 } });
  const key = Buffer.alloc(32, 1);
  const old = Buffer.alloc(32, 2);
  const toml = '[[write_tokens]]\nname = "ops"\ntoken = "ops-token-0123456789"\nnamespaces = ["*"]\nservice_prefixes = ["*"]\n';

  it('copies the keys and write tokens into an auth Secret the registry mounts read-only; flags name files only', () => {
    const auth = { masterKeys: [key, old], writeTokensToml: toml, requireWriteTokens: true };
    const secret = renderRegistryAuthSecret(rc, auth)!;
    expect(secret.metadata.name).toBe(authSecretName(rc));
    const data = (secret as Any).data as Record<string, string>;
    expect(Buffer.from(data['registry-master-key']!, 'base64').toString()).toBe(key.toString('hex'));
    expect(Buffer.from(data['previous-registry-master-key']!, 'base64').toString()).toBe(old.toString('hex'));
    expect(Buffer.from(data['write-tokens.toml']!, 'base64').toString()).toBe(toml);
    const dep = renderRegistryDeployment(rc, { etcdEndpoints: ['http://e:2379'], auth });
    const c = pod(dep).spec.containers[0];
    expect(c.args).toEqual(
      expect.arrayContaining([
        `--registry-master-key-file=${AUTH_DIR}/registry-master-key`,
        `--previous-registry-master-key-file=${AUTH_DIR}/previous-registry-master-key`,
        `--write-tokens-file=${AUTH_DIR}/write-tokens.toml`,
        '--require-write-tokens',
      ]),
    );
    expect(c.volumeMounts).toContainEqual({ name: 'auth', mountPath: AUTH_DIR, readOnly: true });
    const text = JSON.stringify(dep);
    for (const secretValue of [key.toString('hex'), old.toString('hex'), 'ops-token-0123456789']) expect(text).not.toContain(secretValue);
    // A rotation changes the pod template (a digest), so the pods restart and read the new key.
    const rotated = renderRegistryDeployment(rc, { etcdEndpoints: ['http://e:2379'], auth: { ...auth, masterKeys: [Buffer.alloc(32, 9), key] } });
    expect(pod(rotated).metadata.annotations['orrery.dev/registry-auth']).not.toBe(pod(dep).metadata.annotations['orrery.dev/registry-auth']);
  });

  it('without credentials configured: no Secret, no flags (the registry then refuses every write under orrery.functions.)', () => {
    expect(renderRegistryAuthSecret(rc, undefined)).toBeUndefined();
    expect(renderRegistryAuthSecret(rc, { masterKeys: [], requireWriteTokens: false })).toBeUndefined();
    const c = pod(renderRegistryDeployment(rc, { etcdEndpoints: ['http://e:2379'] })).spec.containers[0];
    expect(c.args.join(' ')).not.toMatch(/registry-master-key|write-tokens/);
  });
});
