import { describe, expect, it } from 'vitest';
import { parseRoutesYaml } from './routes-file.ts';

const FN = `apiVersion: orrery.dev/v1alpha1
kind: Function
metadata: {name: hello, namespace: team}
spec:
  template: {source: {inline: "x"}, containerConcurrency: 4, timeoutSeconds: 9}
  state: {sticky: {source: header, name: X-Session-Id}}
`;
const REV = (n: string, extra = '') => `---
apiVersion: orrery.dev/v1alpha1
kind: Revision
metadata: {name: ${n}, namespace: team}
spec: {function: hello, template: {source: {inline: "x"}${extra}}}
`;

describe('routes file', () => {
  it('resolves empty traffic to 100 % of the highest-numbered revision, with that revision\'s limits', () => {
    const t = parseRoutesYaml(FN + REV('hello-00002', ', containerConcurrency: 1, timeoutSeconds: 3') + REV('hello-00010', ', containerConcurrency: 2') + REV('hello-00009'));
    const f = t.get('team', 'hello')!;
    expect(f.weighted.map((w) => [w.route.revision, w.percent])).toEqual([['hello-00010', 100]]);
    expect(f.weighted[0]!.route.containerConcurrency).toBe(2);
    expect(t.revisions.get('team/hello-00002')!.timeoutMs).toBe(3000);
    expect(f.sticky).toEqual({ source: 'header', name: 'x-session-id' });
    expect(t.namespaces()).toEqual(['team']);
  });

  it('keeps query parameter and cookie names as written (they are case-sensitive), lower-cases header names', () => {
    const fn = (sticky: string) => FN.replace('{source: header, name: X-Session-Id}', sticky) + REV('hello-00001');
    expect(parseRoutesYaml(fn('{source: cookie, name: Session_ID}')).get('team', 'hello')!.sticky).toEqual({ source: 'cookie', name: 'Session_ID' });
    expect(parseRoutesYaml(fn('{source: queryparam, name: Sid}')).get('team', 'hello')!.sticky).toEqual({ source: 'queryparam', name: 'Sid' });
    // A name no browser sends as one cookie is refused with the validation reason, not routed.
    expect(() => parseRoutesYaml(fn('{source: cookie, name: "my session"}'))).toThrow(/sticky_cookie_name/);
  });

  it('prefers status.latestReadyRevision for latestRevision targets, and tags map to revisions', () => {
    const t = parseRoutesYaml(
      FN.replace('  state:', '  traffic: [{latestRevision: true, percent: 100, tag: latest}, {revisionName: hello-00001, percent: 0, tag: old}]\n  state:') +
        'status: {latestReadyRevision: hello-00001}\n' +
        REV('hello-00001') +
        REV('hello-00002'),
    );
    const f = t.get('team', 'hello')!;
    expect(f.weighted[0]!.route.revision).toBe('hello-00001');
    expect(f.tags.get('old')!.revision).toBe('hello-00001');
    expect(f.tags.get('latest')!.revision).toBe('hello-00001');
  });

  it("replays on worker loss only the revisions whose own template says onWorkerLoss: replay (absent means fail)", () => {
    const t = parseRoutesYaml(
      FN.replace('timeoutSeconds: 9}', 'timeoutSeconds: 9, onWorkerLoss: replay}') + REV('hello-00001') + REV('hello-00002', ', onWorkerLoss: fail') + REV('hello-00003', ', onWorkerLoss: replay'),
    );
    expect(Object.fromEntries([...t.revisions.values()].map((r) => [r.revision, r.replayOnWorkerLoss]))).toEqual({ 'hello-00001': false, 'hello-00002': false, 'hello-00003': true });
    expect(() => parseRoutesYaml(FN + REV('hello-00001', ', onWorkerLoss: retry'))).toThrow(/onWorkerLoss/);
  });

  it('rejects unknown kinds and invalid resources with the document number', () => {
    expect(() => parseRoutesYaml('kind: Service\n')).toThrow(/document 1: kind must be Function or Revision/);
    expect(() => parseRoutesYaml(FN + '---\napiVersion: orrery.dev/v1alpha1\nkind: Function\nmetadata: {name: Bad_Name}\nspec: {template: {source: {}}}\n')).toThrow(/document 2 \(Function\)/);
  });
});
