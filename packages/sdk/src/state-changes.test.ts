import { describe, expect, it } from 'vitest';
import { ChangesExpiredError, followChanges, type StateChange } from './state-changes.ts';
import { StateError } from './state-error.ts';

/** A streamed 200 whose body is `frames`, then (unless `hold`) the end of the stream. */
function stream(frames: string[], opts: { hold?: boolean } = {}): Response {
  const enc = new TextEncoder();
  let cancelled = false;
  const body = new ReadableStream<Uint8Array>({
    async start(c) {
      for (const f of frames) {
        if (cancelled) return;
        c.enqueue(enc.encode(f));
        await new Promise((r) => setTimeout(r, 1));
      }
      if (!opts.hold) c.close();
    },
    cancel() {
      cancelled = true;
    },
  });
  return new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream' } });
}

const json = (status: number, body: unknown) => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
const ev = (seq: number, key = `k${seq}`) => `id: ${seq}\ndata: ${JSON.stringify({ seq, key, op: 'set', version: seq * 10, value: seq })}\n\n`;

/** `open` answering from a list (one per connection) and recording the paths asked for. */
function opener(answers: Array<Response | Error | (() => Response)>) {
  const paths: string[] = [];
  const open = async (path: string) => {
    paths.push(path);
    const a = answers.shift();
    if (a === undefined) throw new Error('no more answers');
    if (a instanceof Error) throw a;
    return typeof a === 'function' ? a() : a;
  };
  return { open, paths };
}

async function take<T>(it: AsyncIterable<T>, n: number): Promise<T[]> {
  const out: T[] = [];
  if (n === 0) return out;
  for await (const x of it) {
    out.push(x);
    if (out.length === n) break;
  }
  return out;
}

describe('followChanges', () => {
  it('yields changes in order and resumes after the last one on a new connection', async () => {
    const { open, paths } = opener([stream(['id: 4\n\n', ev(5), ev(6)]), stream([ev(7), ': keep-alive\n\n', ev(8)])]);
    const got = await take(followChanges(open, { prefix: 'k', since: 4, retryDelayMs: 1 }), 4);
    expect(got.map((c: StateChange) => c.seq)).toEqual([5, 6, 7, 8]);
    expect(got[0]).toEqual({ seq: 5, key: 'k5', op: 'set', version: 50, value: 5 });
    expect(paths).toEqual(['/v1/changes?prefix=k&since=4', '/v1/changes?prefix=k&since=6']);
  });

  it('from now: the stream\'s first position is where a reconnect resumes; positions without events move it on', async () => {
    const { open, paths } = opener([stream(['id: 41\n\n']), stream(['id: 50\n\n']), stream([ev(51)])]);
    expect((await take(followChanges(open, { retryDelayMs: 1 }), 1))[0]!.seq).toBe(51);
    expect(paths).toEqual(['/v1/changes', '/v1/changes?since=41', '/v1/changes?since=50']);
  });

  it('never yields a change twice, even if a server replays one', async () => {
    const { open } = opener([stream(['id: 0\n\n', ev(1), ev(2)]), stream([ev(2), ev(3)])]);
    expect((await take(followChanges(open, { retryDelayMs: 1 }), 3)).map((c) => c.seq)).toEqual([1, 2, 3]);
  });

  it('410 changes_expired is a ChangesExpiredError (a StateError), whether refused or sent in the stream', async () => {
    const refused = opener([json(410, { error: 'gone, re-read', code: 'changes_expired' })]);
    const err = await take(followChanges(refused.open, { since: 1 }), 1).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ChangesExpiredError);
    expect(err).toBeInstanceOf(StateError);
    expect(err).toMatchObject({ code: 'changes_expired', status: 410, message: 'gone, re-read' });
    const mid = opener([stream(['id: 1\n\n', ev(2), 'event: error\ndata: {"error":"behind","code":"changes_expired"}\n\n'])]);
    const seen: number[] = [];
    const err2 = await (async () => {
      for await (const c of followChanges(mid.open, { since: 1 })) seen.push(c.seq);
    })().catch((e: unknown) => e);
    expect(seen).toEqual([2]);
    expect(err2).toBeInstanceOf(ChangesExpiredError);
  });

  it('retries 503 and lost connections; other refusals (403, 429) are raised', async () => {
    const { open, paths } = opener([json(503, { error: 'db', code: 'capability_unavailable' }), new TypeError('fetch failed'), stream(['id: 0\n\n', ev(1)])]);
    expect((await take(followChanges(open, { since: 0, retryDelayMs: 1 }), 1))[0]!.seq).toBe(1);
    expect(paths).toHaveLength(3);
    for (const [status, code] of [[403, 'forbidden'], [429, 'too_many_streams']] as const) {
      const o = opener([json(status, { error: 'no', code })]);
      await expect(take(followChanges(o.open, { retryDelayMs: 1 }), 1)).rejects.toMatchObject({ code, status });
    }
  });

  it('a database outage in the stream reconnects; forbidden in the stream ends it', async () => {
    const outage = opener([stream(['id: 0\n\n', ev(1), 'event: error\ndata: {"error":"db","code":"capability_unavailable"}\n\n']), stream([ev(2)])]);
    expect((await take(followChanges(outage.open, { since: 0, retryDelayMs: 1 }), 2)).map((c) => c.seq)).toEqual([1, 2]);
    expect(outage.paths[1]).toBe('/v1/changes?since=1');
    const gone = opener([stream(['id: 0\n\n', 'event: error\ndata: {"error":"undeclared","code":"forbidden"}\n\n'])]);
    await expect(take(followChanges(gone.open, { since: 0 }), 1)).rejects.toMatchObject({ code: 'forbidden', status: 403 });
  });

  it('a silent connection is dropped after idleTimeoutMs and reopened', async () => {
    const { open, paths } = opener([stream(['id: 3\n\n'], { hold: true }), stream([ev(4)])]);
    expect((await take(followChanges(open, { idleTimeoutMs: 30, retryDelayMs: 1 }), 1))[0]!.seq).toBe(4);
    expect(paths).toEqual(['/v1/changes', '/v1/changes?since=3']);
  });

  it('an abort signal ends the loop without an error, also while it waits', async () => {
    const ctrl = new AbortController();
    const { open } = opener([stream(['id: 0\n\n', ev(1)], { hold: true })]);
    const seen: number[] = [];
    const done = (async () => {
      for await (const c of followChanges(open, { since: 0, signal: ctrl.signal })) seen.push(c.seq);
    })();
    await new Promise((r) => setTimeout(r, 20));
    ctrl.abort();
    await done;
    expect(seen).toEqual([1]);
  });
});
