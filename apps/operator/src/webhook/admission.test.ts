import { describe, expect, it } from 'vitest';
import { type AdmissionRequest, BadReviewError, defaultAdmission, parseReview, validateAdmission } from './admission.ts';
import { keyspaceHoldersAmong } from '@orrery/store';
import { applyAdds, defaultsPatch, escapePointer } from './json-patch.ts';

const req = (object: unknown, extra: Partial<AdmissionRequest> = {}): AdmissionRequest => ({
  uid: 'u-1',
  kind: { group: 'orrery.dev', version: 'v1alpha1', kind: 'Function' },
  operation: 'CREATE',
  namespace: 'team-a',
  name: 'hello',
  object,
  ...extra,
});

const fn = (spec: Record<string, unknown>, metadata: Record<string, unknown> = {}) => ({
  apiVersion: 'orrery.dev/v1alpha1',
  kind: 'Function',
  metadata: { name: 'hello', ...metadata },
  spec,
});

const decode = (patch: string | undefined) => JSON.parse(Buffer.from(patch!, 'base64').toString('utf8')) as Array<{ op: string; path: string; value: unknown }>;

describe('validating admission', () => {
  it('allows a valid Function', () => {
    expect(validateAdmission(req(fn({ template: { source: { inline: 'x' } } })))).toEqual({ uid: 'u-1', allowed: true });
  });

  it('denies with every error, each with its path, as 422 Invalid', () => {
    const res = validateAdmission(
      req(fn({ template: { source: { inline: 'x' }, containerConcurrency: -1 }, state: { keyspace: 'Bad_Keyspace' }, traffic: [{ latestRevision: true, percent: 50 }] })),
    );
    expect(res.allowed).toBe(false);
    expect(res.status).toMatchObject({ code: 422, reason: 'Invalid' });
    const fields = res.status!.details!.causes.map((c) => c.field);
    expect(fields).toEqual(expect.arrayContaining(['spec.template.containerConcurrency', 'spec.state.keyspace']));
    expect(fields.some((f) => f.startsWith('spec.traffic'))).toBe(true);
    expect(res.status!.message).toContain('Function team-a/hello is invalid: ');
    expect(res.status!.message).toContain('spec.state.keyspace: ');
  });

  it('denies unknown fields that Kubernetes would silently prune', () => {
    const res = validateAdmission(req(fn({ template: { source: { inline: 'x' } }, stikcy: true })));
    expect(res.allowed).toBe(false);
    expect(res.status!.details!.causes).toContainEqual(expect.objectContaining({ field: 'spec.stikcy', reason: 'unknown_field' }));
  });

  it('uses the request namespace when the object has none', () => {
    const res = validateAdmission(req(fn({ template: { source: { inline: 'x' } } }), { namespace: 'Not_A_Label' }));
    expect(res.allowed).toBe(false);
    expect(res.status!.details!.causes[0]!.field).toBe('metadata.namespace');
  });

  it('refuses to edit a Revision’s spec but allows unchanged updates', () => {
    const rev = (inline: string) => ({
      apiVersion: 'orrery.dev/v1alpha1',
      kind: 'Revision',
      metadata: { name: 'hello-00001', namespace: 'team-a', labels: { 'orrery.dev/function': 'hello' } },
      spec: { function: 'hello', template: { source: { inline } } },
    });
    const kind = { group: 'orrery.dev', version: 'v1alpha1', kind: 'Revision' };
    const changed = validateAdmission(req(rev('b'), { kind, operation: 'UPDATE', oldObject: rev('a'), name: 'hello-00001' }));
    expect(changed.allowed).toBe(false);
    expect(changed.status!.details!.causes).toContainEqual(expect.objectContaining({ field: 'spec', reason: 'revision_immutable' }));
    expect(validateAdmission(req(rev('a'), { kind, operation: 'UPDATE', oldObject: rev('a') })).allowed).toBe(true);
  });

  it('lets through what is not ours to judge: DELETE, other groups, subresources', () => {
    expect(validateAdmission(req(undefined, { operation: 'DELETE' })).allowed).toBe(true);
    expect(validateAdmission(req({ bogus: true }, { kind: { group: 'apps', version: 'v1', kind: 'Deployment' } })).allowed).toBe(true);
    expect(validateAdmission(req({ bogus: true }, { subResource: 'status', operation: 'UPDATE' })).allowed).toBe(true);
  });

  it('refuses a new declaration of a keyspace another Function holds, naming the owner; the owner and unchanged keyspaces pass', () => {
    const stored = [
      fn({ template: { source: { inline: 'x' } }, state: { keyspace: 'cart' } }, { name: 'owner', namespace: 'team-a', creationTimestamp: '2026-01-01T00:00:00Z' }),
      // Slipped past admission (webhook off): declares the owner's keyspace too.
      fn({ template: { source: { inline: 'x' } }, state: { keyspace: 'cart' } }, { name: 'late', namespace: 'team-a', creationTimestamp: '2026-02-01T00:00:00Z' }),
    ];
    const lookup = { environment: () => undefined, keyspaceHolders: (ns: string, ks: string) => keyspaceHoldersAmong(stored, ns, ks) };
    const second = fn({ template: { source: { inline: 'x' } }, state: { keyspace: 'cart' } }, { name: 'second' });
    const denied = validateAdmission(req(second, { name: 'second' }), lookup);
    expect(denied.allowed).toBe(false);
    expect(denied.status!.details!.causes).toEqual([expect.objectContaining({ field: 'spec.state.keyspace', reason: 'state_keyspace_taken' })]);
    expect(denied.status!.message).toContain('belongs to Function team-a/owner');
    // Without the Functions (no lookup) the rule is skipped, as `validate` offline with one file.
    expect(validateAdmission(req(second, { name: 'second' })).allowed).toBe(true);
    // Updates that keep the keyspace they declared pass: the owner, and even the one that slipped past.
    for (const name of ['owner', 'late']) {
      const before = stored.find((f) => f.metadata.name === name)!;
      const after = { ...before, spec: { ...before.spec, state: { keyspace: 'cart', maxKeys: 5 } } };
      expect(validateAdmission(req(after, { name, operation: 'UPDATE', oldObject: before }), lookup).allowed, name).toBe(true);
    }
    // An update moving onto the taken keyspace is a new declaration.
    const mover = fn({ template: { source: { inline: 'x' } }, state: { keyspace: 'own' } }, { name: 'mover', namespace: 'team-a' });
    const moved = validateAdmission(req({ ...mover, spec: { ...mover.spec, state: { keyspace: 'cart' } } }, { name: 'mover', operation: 'UPDATE', oldObject: mover }), lookup);
    expect(moved.status!.details!.causes.map((c) => c.reason)).toEqual(['state_keyspace_taken']);
  });
});

describe('defaulting admission', () => {
  it('adds the schema defaults as a JSON Patch and nothing else', () => {
    const object = fn({ template: { source: { inline: 'x' } }, traffic: [{ latestRevision: true, percent: 100 }] }, { managedFields: [{ manager: 'kubectl' }] });
    const res = defaultAdmission(req(object));
    expect(res).toMatchObject({ uid: 'u-1', allowed: true, patchType: 'JSONPatch' });
    const ops = decode(res.patch);
    expect(ops.every((o) => o.op === 'add')).toBe(true);
    const paths = ops.map((o) => o.path);
    expect(paths).toEqual(expect.arrayContaining(['/spec/template/environment', '/spec/template/executor', '/spec/template/timeoutSeconds', '/spec/template/autoscaling']));
    expect(paths).not.toContain('/metadata/namespace');
    expect(paths.some((p) => p.startsWith('/metadata/managedFields'))).toBe(false);
    const patched = applyAdds(object, ops as never) as unknown as { spec: { template: Record<string, unknown> }; metadata: Record<string, unknown> };
    expect(patched.spec.template).toMatchObject({ environment: 'nodejs', executor: 'deploy', timeoutSeconds: 300, containerConcurrency: 0, entrypoint: 'default' });
    expect(patched.metadata.managedFields).toEqual([{ manager: 'kubectl' }]);
    // A fully defaulted object needs no patch.
    expect(defaultAdmission(req(patched)).patch).toBeUndefined();
  });

  it('fills defaults inside list items', () => {
    const res = defaultAdmission(req(fn({ template: { source: { inline: 'x' } }, traffic: [{ latestRevision: true, percent: 100 }, { revisionName: 'hello-00001', tag: 'old' }] })));
    expect(decode(res.patch)).toContainEqual({ op: 'add', path: '/spec/traffic/1/percent', value: 0 });
  });

  it('leaves invalid objects unpatched (the validating webhook refuses them)', () => {
    expect(defaultAdmission(req(fn({ template: { source: { inline: 'x' }, timeoutSeconds: 0 } })))).toEqual({ uid: 'u-1', allowed: true });
  });
});

describe('json patch', () => {
  it('escapes pointers and only adds', () => {
    expect(escapePointer('orrery.dev/x~y')).toBe('orrery.dev~1x~0y');
    expect(defaultsPatch({ a: { 'b/c': 1 }, keep: 1 }, { a: { 'b/c': 1, d: 2 } })).toEqual([{ op: 'add', path: '/a/d', value: 2 }]);
    expect(defaultsPatch({ l: [1, 2] }, { l: [1] })).toEqual([]);
    expect(defaultsPatch({ a: 1 }, { a: 2 })).toEqual([]);
  });
});

describe('parseReview', () => {
  it('requires an AdmissionReview v1 with uid, kind and operation', () => {
    expect(() => parseReview(null)).toThrow(BadReviewError);
    expect(() => parseReview({ apiVersion: 'admission.k8s.io/v1beta1', kind: 'AdmissionReview', request: {} })).toThrow(/admissionReviewVersions/);
    expect(() => parseReview({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request: { uid: 'x' } })).toThrow(/required/);
    expect(parseReview({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request: req({}) }).uid).toBe('u-1');
  });
});
