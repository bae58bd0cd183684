import { describe, expect, it } from 'vitest';
import type { Resource } from '@orrery/spec';
import { type FeedEventRow, type FeedWatch, KindWatchFeed } from './kind-watch-feed.ts';
import type { WatchEvent } from './types.ts';
import { watchEnding } from './watch-ending.ts';

const obj = (namespace: string, name: string): Resource => ({ apiVersion: 'orrery.dev/v1', kind: 'Function', metadata: { namespace, name }, spec: {} }) as unknown as Resource;

/** An event table in memory: reads are counted, like the store's queries. */
function table(batch = 2) {
  const events: FeedEventRow[] = [];
  let rv = 0;
  const t = {
    reads: 0,
    failNext: false,
    isClosed: false,
    emptied: 0,
    write(namespace: string, name: string, type = 'added') {
      events.push({ resource_version: String(++rv), namespace, type, object: obj(namespace, name) });
    },
    feed: undefined as unknown as KindWatchFeed,
  };
  t.feed = new KindWatchFeed({
    read: async (after, limit) => {
      t.reads++;
      if (t.failNext) throw new Error('database gone');
      return events.filter((e) => Number(e.resource_version) > after).slice(0, limit);
    },
    currentRv: async () => rv,
    batch,
    closed: () => t.isClosed,
    onEmpty: () => t.emptied++,
  });
  return t;
}

function watch(t: ReturnType<typeof table>, o: { namespace?: string; cursor?: number; onEvent?: (e: WatchEvent) => void } = {}) {
  const got: WatchEvent[] = [];
  const w: FeedWatch = { namespace: o.namespace, cursor: o.cursor, onEvent: o.onEvent ?? ((e) => got.push(e)), ending: watchEnding(() => t.feed.remove(w)) };
  t.feed.add(w);
  return { w, got, names: () => got.map((e) => `${e.object.metadata.namespace}/${e.object.metadata.name}@${e.resourceVersion}`) };
}

const settle = () => new Promise((r) => setImmediate(r));

describe('KindWatchFeed', () => {
  it('reads once per change for every watch of the kind, each filtered by its namespace, each holding its own copy', async () => {
    const t = table(10);
    const all = watch(t);
    const team = watch(t, { namespace: 'team' });
    await settle();
    const before = t.reads;
    t.write('default', 'a');
    t.write('team', 'b');
    await t.feed.pump();
    expect(t.reads - before).toBe(1);
    expect(all.names()).toEqual(['default/a@1', 'team/b@2']);
    expect(team.names()).toEqual(['team/b@2']);
    expect(team.got[0]!.object).not.toBe(all.got[1]!.object);
    expect(team.got[0]!.object).toEqual(all.got[1]!.object);
  });

  it('starts a watch without a cursor at the current resourceVersion, and one resumed from an older one there, without repeating events to the others', async () => {
    const t = table();
    t.write('default', 'old-1');
    t.write('default', 'old-2');
    t.write('default', 'old-3');
    const fresh = watch(t);
    await settle();
    const resumed = watch(t, { cursor: 1 });
    await settle();
    await t.feed.pump();
    expect(fresh.names()).toEqual([]);
    // Batches of 2: the resumed watch's catch-up spans two reads.
    expect(resumed.names()).toEqual(['default/old-2@2', 'default/old-3@3']);
    t.write('default', 'new');
    await t.feed.pump();
    expect(fresh.names()).toEqual(['default/new@4']);
    expect(resumed.names()).toEqual(['default/old-2@2', 'default/old-3@3', 'default/new@4']);
  });

  it('hands a closed watch nothing, and a watcher that throws ends only its own watch', async () => {
    const t = table();
    const closed = watch(t);
    const thrower = watch(t, {
      onEvent: () => {
        throw new Error('bad watcher');
      },
    });
    const fine = watch(t);
    await settle();
    closed.w.ending.end();
    t.write('default', 'a');
    t.write('default', 'b');
    await t.feed.pump();
    expect(closed.names()).toEqual([]);
    await expect(thrower.w.ending.done).rejects.toThrow('bad watcher');
    expect(fine.names()).toEqual(['default/a@1', 'default/b@2']);
    expect(t.feed.size).toBe(1);
    fine.w.ending.end();
    expect(t.emptied).toBe(1);
  });

  it('ends every watch with the error when a read fails, but not once the store is closed', async () => {
    const t = table();
    const a = watch(t);
    const b = watch(t);
    await settle();
    t.failNext = true;
    await t.feed.pump();
    await expect(a.w.ending.done).rejects.toThrow('database gone');
    await expect(b.w.ending.done).rejects.toThrow('database gone');

    const u = table();
    const c = watch(u);
    await settle();
    u.failNext = true;
    u.isClosed = true;
    await u.feed.pump();
    expect(c.w.ending.ended).toBe(false);
  });

  it('runs one read at a time: a change during a read is read right after it', async () => {
    const t = table();
    const a = watch(t);
    await settle();
    t.write('default', 'a');
    const first = t.feed.pump();
    t.write('default', 'b');
    const second = t.feed.pump(); // joins the running pump
    await Promise.all([first, second]);
    expect(a.names()).toEqual(['default/a@1', 'default/b@2']);
  });
});
