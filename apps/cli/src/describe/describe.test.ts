import { FunctionSchema, RevisionSchema } from '@orrery/spec';
import { describe, expect, it } from 'vitest';
import { describeFunction } from './function-description.ts';
import { lastWorkerErrors } from './worker-errors.ts';

const now = new Date('2026-03-01T12:00:00Z');
const fn = FunctionSchema.parse({
  apiVersion: 'orrery.dev/v1alpha1',
  kind: 'Function',
  metadata: { name: 'cart', namespace: 'shop', creationTimestamp: '2026-03-01T10:00:00Z', generation: 3 },
  spec: {
    template: { source: { inline: 'export default () => 1' }, containerConcurrency: 4, autoscaling: { minScale: 1, maxScale: 5 } },
    traffic: [{ latestRevision: true, percent: 90 }, { revisionName: 'cart-00001', percent: 10, tag: 'old' }],
    state: { keyspace: 'carts', sticky: { source: 'header', name: 'X-User' } },
  },
  status: {
    url: 'http://127.0.0.1:8080/shop/cart',
    latestReadyRevision: 'cart-00002',
    latestCreatedRevision: 'cart-00003',
    traffic: [{ revisionName: 'cart-00002', percent: 90, latestRevision: true }, { revisionName: 'cart-00001', percent: 10, tag: 'old' }],
    conditions: [
      { type: 'ConfigurationsReady', status: 'False', reason: 'WorkerCrashing', message: 'cart-00003: workers keep exiting', lastTransitionTime: '2026-03-01T11:59:00Z' },
      { type: 'Ready', status: 'False', reason: 'RevisionFailed', message: 'see ConfigurationsReady and RoutesReady', lastTransitionTime: '2026-03-01T11:59:00Z' },
    ],
  },
});
const rev = (n: number, ready: Record<string, unknown>, workers: [number, number], created: string) =>
  RevisionSchema.parse({
    apiVersion: 'orrery.dev/v1alpha1',
    kind: 'Revision',
    metadata: { name: `cart-0000${n}`, namespace: 'shop', creationTimestamp: created },
    spec: { function: 'cart', template: { source: { inline: `v${n}` } } },
    status: { readyWorkers: workers[0], desiredScale: workers[1], conditions: [{ type: 'Ready', lastTransitionTime: created, ...ready }] },
  });
const revisions = [
  rev(1, { status: 'True', reason: 'WorkersReady' }, [1, 1], '2026-03-01T10:00:00Z'),
  rev(3, { status: 'False', reason: 'WorkerCrashing', message: 'workers keep exiting (3 restarts): SyntaxError' }, [0, 1], '2026-03-01T11:58:00Z'),
  rev(2, { status: 'True', reason: 'WorkersReady' }, [2, 2], '2026-03-01T11:00:00Z'),
];

describe('orrery describe function', () => {
  it('shows the function, both traffic splits, revisions newest first with percent and tags, and why it is not ready', () => {
    const out = describeFunction({ fn, revisions, events: undefined, workerErrors: [{ worker: 'cart-00003-2', ts: '2026-03-01T11:59:30Z', message: 'SyntaxError: Unexpected token' }], now });
    expect(out).toContain('Name:          cart\nNamespace:     shop\nAge:           2h\nURL:           http://127.0.0.1:8080/shop/cart\nReady:         False (RevisionFailed)');
    expect(out).toContain('Template:      environment nodejs, executor deploy, entrypoint default, concurrency 4, scale 1:5, timeout 300s');
    expect(out).toContain('State:         keyspace carts, sticky header:X-User');
    expect(out).toContain('Traffic:       latest=90%,old:cart-00001=10% (spec)\n               cart-00002=90%,old:cart-00001=10% (served)');
    const revTable = out.slice(out.indexOf('Revisions:'), out.indexOf('\n\nConditions:')).split('\n').slice(1).map((l) => l.trim().split(/\s{3,}/));
    expect(revTable).toEqual([
      ['NAME', 'READY', 'WORKERS', 'AGE', 'TRAFFIC', 'TAGS'],
      ['cart-00003', 'False (WorkerCrashing)', '0/1', '2m', '0%', '<none>'],
      ['cart-00002', 'True', '2/2', '1h', '90%', '<none>'],
      ['cart-00001', 'True', '1/1', '2h', '10%', 'old'],
    ]);
    expect(out).toMatch(/ConfigurationsReady\s+False\s+WorkerCrashing\s+1m\s+cart-00003: workers keep exiting/);
    expect(out).toContain('Conditions of cart-00003:');
    expect(out).toMatch(/Ready\s+False\s+WorkerCrashing\s+2m\s+workers keep exiting \(3 restarts\): SyntaxError/);
    expect(out).not.toContain('Conditions of cart-00002');
    expect(out).toContain('Events:\n  <not readable here');
    expect(out).toContain('Worker errors:\n  [cart-00003-2] 30s ago SyntaxError: Unexpected token');
  });

  it('events as kubectl shows them; unreadable logs say why', () => {
    const out = describeFunction({
      fn,
      revisions: [],
      events: [{ type: 'Warning', reason: 'FieldsTakenOver', object: 'Function/cart', message: 'took spec.x from kubectl', count: 3, lastSeen: '2026-03-01T11:55:00Z' }],
      workerErrors: { unavailable: 'worker logs are in the pods: kubectl logs -l orrery.dev/function=cart' },
      now,
    });
    expect(out).toMatch(/LAST SEEN\s+TYPE\s+REASON\s+OBJECT\s+MESSAGE\n\s+5m\s+Warning\s+FieldsTakenOver\s+Function\/cart\s+took spec.x from kubectl \(x3\)/);
    expect(out).toContain('Revisions:\n  <none>');
    expect(out).toContain('Worker errors:\n  <worker logs are in the pods');
    expect(describeFunction({ fn, revisions: [], events: [], workerErrors: [], now })).toContain('Events:\n  <none>\n\nWorker errors:\n  <none>');
  });
});

describe('worker errors from log lines', () => {
  it('keeps JSON lines at error/fatal and plain crash lines, not stack frames or info; the newest few, oldest first', () => {
    const lines = [
      { worker: 'w-1', line: '{"ts":"2026-03-01T11:00:00Z","level":"info","msg":"listening"}' },
      { worker: 'w-1', line: '{"ts":"2026-03-01T11:01:00Z","level":"error","msg":"handler threw","error":"TypeError: x is undefined"}' },
      { worker: 'w-2', line: 'file:///code/index.mjs:3' },
      { worker: 'w-2', line: 'SyntaxError: Unexpected token \'}\'' },
      { worker: 'w-2', line: '    at compileSourceTextModule (node:internal/modules/esm/utils:338:16)' },
      { worker: 'w-3', line: `{"level":"fatal","msg":"${'x'.repeat(400)}"}` },
    ];
    const crashLoop = [
      { worker: 'w-4', line: '[orrery-operator] worker w-4 exited code=0 signal=null' },
      { worker: 'w-5', line: 'orrery-runtime: cannot load function default/hello (hello-00002): module_load_failed: Unexpected end of input' },
      { worker: 'w-5', line: '' },
      { worker: 'w-5', line: '[orrery-operator] worker w-5 exited code=1 signal=null' },
      { worker: 'w-5', line: '[orrery-operator] worker w-5 exited code=1 signal=null' },
    ];
    expect(lastWorkerErrors(crashLoop)).toEqual([
      { worker: 'w-5', message: 'orrery-runtime: cannot load function default/hello (hello-00002): module_load_failed: Unexpected end of input' },
      { worker: 'w-5', message: 'worker w-5 exited code=1 signal=null', count: 2 },
    ]);
    const got = lastWorkerErrors(lines);
    expect(got.slice(0, 2)).toEqual([
      { worker: 'w-1', ts: '2026-03-01T11:01:00Z', message: 'handler threw: TypeError: x is undefined' },
      { worker: 'w-2', message: "SyntaxError: Unexpected token '}'" },
    ]);
    expect(got[2]!.message).toHaveLength(301);
    expect(lastWorkerErrors(lines, 1).map((e) => e.worker)).toEqual(['w-3']);
    expect(lastWorkerErrors([{ worker: 'w', line: 'GET / 200' }])).toEqual([]);
  });
});
