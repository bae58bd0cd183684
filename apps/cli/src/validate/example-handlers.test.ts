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

class MemoryState {
  private data = new Map<string, { value: unknown; version: number }>();
  private next = 1;
  conflicts = 0;
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
    return { version };
  }
  async cas(key: string, expectVersion: number, value: unknown) {
    return this.set(key, value, { ifVersion: expectVersion });
  }
  async delete(key: string) {
    await tick();
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
