/**
 * Revision garbage collection on the local backend (issue 25, "Revision lifecycle"): the shared
 * Function reconciler deletes what planRevisionCollection no longer keeps, through the local
 * FunctionBackend (the resource store); a Function's spec.revisionGC wins over the operator's
 * platform-wide settings, a revision named in traffic is never collected, a young one neither.
 * Real store (embedded); the workers are a stand-in (none run, so no revision becomes Ready).
 */
import { connect } from '@orrery/db';
import type { Revision } from '@orrery/spec';
import { type ResourceStore, createLocalStore } from '@orrery/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventRecorder } from '../../events/event-recorder.ts';
import { LocalFunctionOperator } from './local-function-operator.ts';
import { workerlessBackend } from './testing/workerless-backend.ts';

const NS = 'gc';
let conn: ReturnType<typeof connect>;
let store: ResourceStore;
let operator: LocalFunctionOperator;
const recorded: Array<{ name: string; reason: string; message: string }> = [];

const fn = (name: string, version: number, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'orrery.dev/v1alpha1',
  kind: 'Function',
  metadata: { name, namespace: NS },
  spec: { template: { environment: 'nodejs', source: { inline: `export default () => "v${version}"` } }, ...extra },
});

const revisions = async (name: string) =>
  ((await store.list('Revision', { namespace: NS, labels: { 'orrery.dev/function': name } })).items as Revision[]).map((r) => r.metadata.name).sort();

/** `count` template changes, each waited for, so the Function has revisions 1..count. */
async function deployVersions(name: string, count: number, extra: (v: number) => Record<string, unknown> = () => ({})): Promise<void> {
  for (let v = 1; v <= count; v++) {
    await store.apply(fn(name, v, extra(v)));
    await expect.poll(async () => (await revisions(name)).includes(`${name}-${String(v).padStart(5, '0')}`), { timeout: 10_000 }).toBe(true);
  }
  await operator.functions.idle();
}

beforeAll(async () => {
  conn = connect({ url: '' });
  store = await createLocalStore(conn);
  await store.apply({ apiVersion: 'orrery.dev/v1alpha1', kind: 'Environment', metadata: { name: 'nodejs', namespace: NS }, spec: { image: 'orrery/runtime-node:latest' } });
  const backend = workerlessBackend();
  const events = new EventRecorder({
    write: async (target, event) => {
      recorded.push({ name: target.name, reason: event.reason, message: event.message });
      return 1;
    },
  });
  // Platform-wide: keep 2 non-routed revisions, no minimum age.
  operator = new LocalFunctionOperator({ store, backend, events, resyncMs: 3_600_000, revisionGc: { keep: 2, minAgeMs: 0 } });
  await operator.start();
}, 120_000);
afterAll(async () => {
  await operator?.stop();
  await store?.close();
  await conn?.close();
});

describe('revision garbage collection on the local backend', () => {
  it('platform-wide settings: the latest created and the 2 newest others stay, older ones are deleted', { timeout: 60_000 }, async () => {
    await deployVersions('platform', 5);
    await expect.poll(() => revisions('platform'), { timeout: 10_000 }).toEqual(['platform-00003', 'platform-00004', 'platform-00005']);
  });

  it('a Function’s spec.revisionGC wins: keep 0 leaves only the latest created', { timeout: 60_000 }, async () => {
    await deployVersions('own', 4, () => ({ revisionGC: { keep: 0 } }));
    await expect.poll(() => revisions('own'), { timeout: 10_000 }).toEqual(['own-00004']);
  });

  it('a revision named in traffic (by a 0 % tag too) is never collected', { timeout: 60_000 }, async () => {
    await deployVersions('pinned', 1, () => ({ revisionGC: { keep: 0 } }));
    const pin = { revisionGC: { keep: 0 }, traffic: [{ revisionName: 'pinned-00001', percent: 100 }, { latestRevision: true, percent: 0, tag: 'next' }] };
    await deployVersions('pinned', 4, () => pin);
    await expect.poll(() => revisions('pinned'), { timeout: 10_000 }).toEqual(['pinned-00001', 'pinned-00004']);
  });

  it('a revision younger than minAge is kept whatever keep says', { timeout: 60_000 }, async () => {
    await deployVersions('young', 4, () => ({ revisionGC: { keep: 0, minAge: '1h' } }));
    await operator.functions.idle();
    expect(await revisions('young')).toEqual(['young-00001', 'young-00002', 'young-00003', 'young-00004']);
  });

  it('each collection is reported as a RevisionCollected Event on the Function', () => {
    const own = recorded.filter((e) => e.name === 'own' && e.reason === 'RevisionCollected');
    expect(own.length).toBeGreaterThan(0);
    expect(own.map((e) => e.message).join(' ')).toMatch(/own-00001/);
    expect(recorded.some((e) => e.name === 'young' && e.reason === 'RevisionCollected')).toBe(false);
  });
});
