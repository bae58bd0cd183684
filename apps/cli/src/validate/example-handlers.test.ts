/**
 * The inline handlers in examples/ are real code that README, e2e and other engineers run:
 * load them from the manifests and drive them with an in-memory state client that follows
 * the state API's version rules (expectVersion/ifVersion 0 = create only, conflict = code
 * version_conflict), interleaving calls so compare-and-swap retries actually happen.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { createStateClient, type StateClient } from '@orrery/sdk';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..');
const tmp = mkdtempSync(join(tmpdir(), 'orrery-examples-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

interface ManifestDoc {
  toJS(): { spec: { template: { source: { inline: string } } } };
}

type Handler = (request: Request, ctx: { state: MemoryState | StateClient }) => Promise<Response>;

async function loadHandler(manifest: string): Promise<Handler> {
  const [doc] = parseAllDocuments(readFileSync(join(root, manifest), 'utf8')) as unknown as ManifestDoc[];
  const code = doc!.toJS().spec.template.source.inline;
  const file = join(tmp, `${manifest.replace(/\W/g, '_')}.mjs`);
  writeFileSync(file, code);
  return ((await import(/* @vite-ignore */ pathToFileURL(file).href)) as { default: Handler }).default;
}

class Conflict extends Error {
  code = 'version_conflict';
}

const tick = () => new Promise((r) => setImmediate(r));

type Change = { seq: number; key: string; op: 'set' | 'delete'; version: number; value?: unknown };

class MemoryState {
  private data = new Map<string, { value: unknown; version: number }>();
  private next = 1;
  private seq = 0;
  /** Followers of the change feed (the fake GET /v1/changes). */
  readonly followers = new Set<(c: Change) => void>();
  conflicts = 0;
  private emit(c: Omit<Change, 'seq'>) {
    const change = { ...c, seq: ++this.seq };
    for (const f of this.followers) f(change);
  }
  async get(key: string) {
    await tick();
    const e = this.data.get(key);
    return e ? { value: structuredClone(e.value), version: e.version } : null;
  }
  async set(key: string, value: unknown, opts: { ttlSeconds?: number; ifVersion?: number } = {}) {
    await tick();
    const cur = this.data.get(key);
    if (opts.ifVersion !== undefined && (cur?.version ?? 0) !== opts.ifVersion) {
      this.conflicts++;
      throw new Conflict('version conflict');
    }
    const version = this.next++;
    this.data.set(key, { value: structuredClone(value), version });
    this.emit({ key, op: 'set', version, value: structuredClone(value) });
    return { version };
  }
  async cas(key: string, expectVersion: number, value: unknown) {
    return this.set(key, value, { ifVersion: expectVersion });
  }
  async delete(key: string) {
    await tick();
    const cur = this.data.get(key);
    if (cur) this.emit({ key, op: 'delete', version: cur.version });
    return this.data.delete(key);
  }
  async list() {
    return { keys: [...this.data.keys()].sort(), cursor: '' };
  }
}

/**
 * statesvc's GET, PUT, CAS and DELETE over a MemoryState, as a `fetch` for the real SDK: the
 * counter calls ctx.state.update(), whose loop (one update per key at a time per client, retried
 * on a conflict with another client) is the SDK's own, not a copy in this test.
 */
function stateApi(state: MemoryState): typeof fetch {
  const answer = (status: number, body: unknown, headers: Record<string, string> = {}) =>
    new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });
  return async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : input.toString());
    if (url.pathname === '/v1/changes') return changeStream(state, url.searchParams.get('prefix') ?? '', init?.signal ?? undefined);
    const m = /^\/v1\/state\/([^/]+)(\/cas)?$/.exec(url.pathname);
    if (!m) return answer(404, { code: 'not_found' });
    const key = decodeURIComponent(m[1]!);
    const method = init?.method ?? 'GET';
    const body = typeof init?.body === 'string' ? (JSON.parse(init.body) as unknown) : undefined;
    try {
      if (method === 'GET') {
        const e = await state.get(key);
        return e ? answer(200, { value: e.value }, { 'x-orrery-state-version': String(e.version) }) : answer(404, { code: 'not_found' });
      }
      if (method === 'POST' && m[2]) {
        const { expectVersion, value } = body as { expectVersion: number; value: unknown };
        return answer(200, await state.cas(key, expectVersion, value));
      }
      if (method === 'DELETE') return (await state.delete(key)) ? answer(200, {}) : answer(404, { code: 'not_found' });
    } catch (err) {
      if (err instanceof Conflict) return answer(412, { code: 'version_conflict', error: err.message });
      throw err;
    }
    return answer(405, { code: 'bad_request' });
  };
}

/** GET /v1/changes from now, as statesvc frames it (`id:` + `data:` per change). */
function changeStream(state: MemoryState, prefix: string, signal: AbortSignal | undefined): Response {
  const encoder = new TextEncoder();
  let follower: ((c: Change) => void) | undefined;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      follower = (c) => {
        if (c.key.startsWith(prefix)) controller.enqueue(encoder.encode(`id: ${c.seq}\ndata: ${JSON.stringify(c)}\n\n`));
      };
      state.followers.add(follower);
      signal?.addEventListener('abort', () => {
        state.followers.delete(follower!);
        controller.close();
      });
    },
    cancel: () => void state.followers.delete(follower!),
  });
  return new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream' } });
}

describe('examples/counter', () => {
  it('counts every concurrent increment exactly once: two workers, each with the real SDK’s update()', async () => {
    const handler = await loadHandler('examples/counter/function.yaml');
    const state = new MemoryState();
    const tokenPath = join(tmp, 'counter-token');
    writeFileSync(tokenPath, JSON.stringify({ namespace: 'default', keyspace: 'counter', token: 'x' }));
    const workers = [0, 1].map(() => ({ state: createStateClient({ url: 'http://statesvc.test', tokenPath, fetch: stateApi(state) }) }));
    const responses = await Promise.all(
      Array.from({ length: 40 }, (_, i) => handler(new Request('http://fn/?key=k', { method: 'POST' }), workers[i % 2]!)),
    );
    expect(responses.map((r) => r.status)).toEqual(responses.map(() => 200));
    const counts = (await Promise.all(responses.map((r) => r.json()))).map((b: { count: number }) => b.count).sort((a, b) => a - b);
    expect(counts).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
    // The two workers raced each other (and won in turn); within one worker the SDK queued them.
    expect(state.conflicts).toBeGreaterThan(0);
    expect(state.conflicts).toBeLessThan(40);
    const read = await (await handler(new Request('http://fn/?key=k'), workers[0]!)).json();
    expect(read).toMatchObject({ key: 'k', count: 40 });
    await handler(new Request('http://fn/?key=k', { method: 'DELETE' }), workers[1]!);
    expect(await (await handler(new Request('http://fn/?key=k'), workers[0]!)).json()).toMatchObject({ count: 0 });
  });

  it('GET ?watch streams each new count of its key from the change feed, and stops following when the client goes', async () => {
    const handler = await loadHandler('examples/counter/function.yaml');
    const state = new MemoryState();
    const tokenPath = join(tmp, 'watch-token');
    writeFileSync(tokenPath, JSON.stringify({ namespace: 'default', keyspace: 'counter', token: 'x' }));
    const worker = { state: createStateClient({ url: 'http://statesvc.test', tokenPath, fetch: stateApi(state) }) };
    const watch = await handler(new Request('http://fn/?key=w&watch'), worker);
    expect(watch.headers.get('content-type')).toBe('text/event-stream');
    const reader = watch.body!.getReader();
    while (state.followers.size === 0) await tick(); // the handler's loop has connected
    await handler(new Request('http://fn/?key=w', { method: 'POST' }), worker);
    await handler(new Request('http://fn/?key=other', { method: 'POST' }), worker); // another key: not in this stream
    await handler(new Request('http://fn/?key=w', { method: 'POST' }), worker);
    await handler(new Request('http://fn/?key=w', { method: 'DELETE' }), worker);
    const events: Array<{ key: string; count: number; op: string }> = [];
    let text = '';
    while (events.length < 3) {
      const { value, done } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
      const frames = text.split('\n\n');
      text = frames.pop()!;
      for (const f of frames) events.push(JSON.parse(f.replace(/^data: /, '')) as { key: string; count: number; op: string });
    }
    expect(events.map((e) => [e.key, e.count, e.op])).toEqual([['w', 1, 'set'], ['w', 2, 'set'], ['w', 0, 'delete']]);
    await reader.cancel();
    for (let i = 0; i < 50 && state.followers.size > 0; i++) await tick();
    expect(state.followers.size).toBe(0);
  });
});

describe('examples/cart', () => {
  const post = (session: string, body: unknown) =>
    new Request('http://fn:8123/', { method: 'POST', headers: { 'x-session-id': session, 'content-type': 'application/json' }, body: JSON.stringify(body) });

  it('keeps a cart per session, reports the worker and whether its cache was current', async () => {
    const handler = await loadHandler('examples/cart/function.yaml');
    const state = new MemoryState();
    await Promise.all([handler(post('s1', { item: 'apple', qty: 2 }), { state }), handler(post('s1', { item: 'apple' }), { state })]);
    await handler(post('s2', { item: 'pear' }), { state });
    const get = await (await handler(new Request('http://fn:8123/', { headers: { 'x-session-id': 's1' } }), { state })).json();
    expect(get).toMatchObject({ session: 's1', cart: { items: { apple: 3 } }, cacheHit: true, worker: { pid: process.pid } });
    expect(typeof get.worker.port).toBe('number');
    expect((await state.get('cart/s2'))?.value).toEqual({ items: { pear: 1 } });
  });

  it('rejects requests without X-Session-Id and bad bodies', async () => {
    const handler = await loadHandler('examples/cart/function.yaml');
    const state = new MemoryState();
    expect((await handler(new Request('http://fn/'), { state })).status).toBe(400);
    expect((await handler(post('s', { item: 'x', qty: 0 }), { state })).status).toBe(400);
  });
});

describe('examples/canary', () => {
  it('the two revisions answer v1 and v2', async () => {
    const docs = parseAllDocuments(readFileSync(join(root, 'examples/canary/revisions.yaml'), 'utf8')) as unknown as ManifestDoc[];
    const versions: string[] = [];
    for (const [i, doc] of docs.entries()) {
      const file = join(tmp, `canary-${i}.mjs`);
      writeFileSync(file, doc.toJS().spec.template.source.inline);
      const mod = (await import(/* @vite-ignore */ pathToFileURL(file).href)) as { default: () => Promise<Response> };
      versions.push(((await (await mod.default()).json()) as { version: string }).version);
    }
    expect(versions).toEqual(['v1', 'v2']);
  });
});

describe('examples/queue', () => {
  it('stores an order once per message (the delivery id is the write\'s Idempotency-Key), refuses what is not an order, reads it back', async () => {
    const handler = await loadHandler('examples/queue/function.yaml');
    const writes: Array<{ key: string; value: unknown; opts: unknown }> = [];
    const data = new Map<string, unknown>();
    const state = {
      get: async (key: string) => (data.has(key) ? { value: data.get(key), version: 1 } : null),
      set: async (key: string, value: unknown, opts: unknown) => {
        writes.push({ key, value, opts });
        data.set(key, value);
        return { version: 1 };
      },
    } as unknown as MemoryState;
    const delivery = (body: string, attempt = 1) =>
      new Request('http://x/', { method: 'POST', body, headers: { 'content-type': 'application/json', 'orrery-delivery-id': 'ORDERS:7', 'orrery-delivery-attempt': String(attempt) } });
    const first = await handler(delivery('{"id":"o-1","item":"tea","qty":2}', 2), { state });
    expect(first.status).toBe(200);
    expect(writes).toEqual([{ key: 'order:o-1', value: { id: 'o-1', item: 'tea', qty: 2, delivery: 'ORDERS:7', attempt: 2 }, opts: { idempotencyKey: 'ORDERS:7' } }]);
    expect((await handler(delivery('not json'), { state })).status).toBe(400);
    expect((await handler(delivery('{"item":"tea"}'), { state })).status).toBe(400);
    expect(await (await handler(new Request('http://x/?id=o-1'), { state })).json()).toMatchObject({ id: 'o-1', item: 'tea' });
    expect((await handler(new Request('http://x/?id=none'), { state })).status).toBe(404);
  });
});

describe('examples/cron', () => {
  it('records the tick its cron trigger sends, and reads the last heartbeat back', async () => {
    const handler = await loadHandler('examples/cron/function.yaml');
    const state = new MemoryState();
    expect((await handler(new Request('http://x/'), { state })).status).toBe(404);
    const tick = new Request('http://x/', { method: 'POST', headers: { 'orrery-trigger': 'cron/every-minute', 'orrery-scheduled-time': '2026-03-01T12:00:00Z' } });
    expect((await handler(tick, { state })).status).toBe(200);
    expect(await (await handler(new Request('http://x/'), { state })).json()).toMatchObject({ scheduledTime: '2026-03-01T12:00:00Z', trigger: 'cron/every-minute', receivedAt: expect.any(String) });
  });
});
