import { describe, expect, it } from 'vitest';
import { nextBatchSize, PutBatcher, refusedWhole, type InstancePut, type PutOutcome, type PutSender } from './put-batcher.ts';

const put = (key: string, bytes = 10, lease = '1'): InstancePut => ({ key: Buffer.from(key), value: Buffer.alloc(bytes), lease });

describe('nextBatchSize', () => {
  it('takes nothing from an empty queue and at least one otherwise, however large', () => {
    expect(nextBatchSize([])).toBe(0);
    expect(nextBatchSize([put('a', 10_000_000)], { maxPuts: 64, maxBytes: 100 })).toBe(1);
  });

  it('stops at the put count and the byte limit', () => {
    const many = Array.from({ length: 100 }, (_, i) => put(`k${i}`));
    expect(nextBatchSize(many, { maxPuts: 64, maxBytes: 1 << 20 })).toBe(64);
    // 3-byte keys + 10-byte values = 13 bytes each: 7 fit in 100.
    expect(nextBatchSize(many.slice(10), { maxPuts: 64, maxBytes: 100 })).toBe(7);
  });

  it('never writes a key twice in one txn: the later put waits for the next', () => {
    expect(nextBatchSize([put('a'), put('b'), put('a'), put('c')])).toBe(2);
    expect(nextBatchSize([put('a'), put('a')])).toBe(1);
  });
});

describe('refusedWhole', () => {
  it('is true only for refusals that prove nothing was applied', () => {
    expect(refusedWhole(new Error('etcdserver: requested lease not found'))).toBe(true);
    expect(refusedWhole(new Error('etcdserver: duplicate key given in txn request'))).toBe(true);
    expect(refusedWhole(new Error('etcdserver: too many operations in txn request'))).toBe(true);
    expect(refusedWhole(new Error('etcdserver: request is too large'))).toBe(true);
    expect(refusedWhole(new Error('4 DEADLINE_EXCEEDED: Deadline exceeded'))).toBe(false);
    expect(refusedWhole(new Error('etcdserver: leader changed'))).toBe(false);
    expect(refusedWhole(new Error('No connection established'))).toBe(false);
  });
});

/** A sender whose calls are answered by the test, in any order. */
class HeldSender implements PutSender {
  calls: { kind: 'one' | 'many'; puts: InstancePut[]; resolve: (out: PutOutcome[]) => void; reject: (err: Error) => void }[] = [];
  private revision = 100;

  one(p: InstancePut): Promise<PutOutcome> {
    return new Promise((resolve, reject) => this.calls.push({ kind: 'one', puts: [p], resolve: (o) => resolve(o[0]!), reject }));
  }
  many(puts: readonly InstancePut[]): Promise<PutOutcome[]> {
    return new Promise((resolve, reject) => this.calls.push({ kind: 'many', puts: [...puts], resolve, reject }));
  }
  /** Answers call `i` as etcd would: one revision for the whole call. */
  answer(i: number): void {
    const call = this.calls[i]!;
    const revision = ++this.revision;
    call.resolve(call.puts.map((p) => ({ revision, prevLease: p.lease === 'moved' ? '7' : undefined })));
  }
}

const turn = (): Promise<void> => new Promise((r) => setImmediate(r));

describe('PutBatcher', () => {
  it('sends a lone put at once, as a plain put', async () => {
    const sender = new HeldSender();
    const batcher = new PutBatcher(sender);
    const out = batcher.put(put('a'));
    await turn();
    expect(sender.calls.map((c) => [c.kind, c.puts.length])).toEqual([['one', 1]]);
    sender.answer(0);
    await expect(out).resolves.toEqual({ revision: 101, prevLease: undefined });
    expect(batcher.batches).toBe(0);
  });

  it('puts of one turn leave together; those arriving while two txns are in flight wait and leave as one', async () => {
    const sender = new HeldSender();
    const batcher = new PutBatcher(sender);
    const first = ['a', 'b', 'c'].map((k) => batcher.put(put(k)));
    await turn();
    expect(sender.calls.map((c) => c.puts.map((p) => p.key.toString()))).toEqual([['a', 'b', 'c']]);
    const second = batcher.put(put('d'));
    await turn();
    expect(sender.calls).toHaveLength(2); // two in flight now
    const waiting = ['e', 'f', 'g', 'h'].map((k) => batcher.put(put(k)));
    await turn();
    await turn();
    expect(sender.calls).toHaveLength(2); // nothing more leaves while two are in flight
    sender.answer(0);
    await Promise.all(first);
    await turn();
    expect(sender.calls.map((c) => c.puts.map((p) => p.key.toString()))).toEqual([['a', 'b', 'c'], ['d'], ['e', 'f', 'g', 'h']]);
    expect(sender.calls[2]!.kind).toBe('many');
    sender.answer(1);
    sender.answer(2);
    const outs = await Promise.all([...first, second, ...waiting]);
    // One revision per txn, each put told its own previous lease.
    expect(outs.map((o) => o.revision)).toEqual([101, 101, 101, 102, 103, 103, 103, 103]);
    expect(batcher.batches).toBe(2);
    expect(batcher.batchedPuts).toBe(7);
  });

  it('never puts one key twice in a txn: the second put of a key goes in a later txn', async () => {
    const sender = new HeldSender();
    const batcher = new PutBatcher(sender, undefined, 1);
    const a1 = batcher.put(put('a', 10, 'first'));
    const b = batcher.put(put('b'));
    const a2 = batcher.put(put('a', 10, 'second'));
    await turn();
    expect(sender.calls.map((c) => c.puts.map((p) => `${p.key.toString()}@${p.lease}`))).toEqual([['a@first', 'b@1']]);
    sender.answer(0);
    await Promise.all([a1, b]);
    await turn();
    expect(sender.calls[1]!.puts.map((p) => p.lease)).toEqual(['second']);
    sender.answer(1);
    expect((await a2).revision).toBeGreaterThan((await a1).revision);
  });

  it('a txn etcd refused whole goes again put by put, so only the one at fault fails', async () => {
    const sender = new HeldSender();
    const batcher = new PutBatcher(sender);
    const outs = ['a', 'b', 'c'].map((k) => batcher.put(put(k)).then((o) => o.revision, (e: Error) => e.message));
    await turn();
    sender.calls[0]!.reject(new Error('etcdserver: requested lease not found'));
    await turn();
    expect(sender.calls.slice(1).map((c) => [c.kind, c.puts[0]!.key.toString()])).toEqual([['one', 'a'], ['one', 'b'], ['one', 'c']]);
    sender.answer(1);
    sender.calls[2]!.reject(new Error('etcdserver: requested lease not found'));
    sender.answer(3);
    expect(await Promise.all(outs)).toEqual([101, 'etcdserver: requested lease not found', 102]);
  });

  it('a txn whose answer was lost fails every put with that error and sends nothing again', async () => {
    const sender = new HeldSender();
    const batcher = new PutBatcher(sender);
    const outs = ['a', 'b'].map((k) => batcher.put(put(k)).catch((e: Error) => e.message));
    await turn();
    sender.calls[0]!.reject(new Error('4 DEADLINE_EXCEEDED: Deadline exceeded'));
    expect(await Promise.all(outs)).toEqual(['4 DEADLINE_EXCEEDED: Deadline exceeded', '4 DEADLINE_EXCEEDED: Deadline exceeded']);
    await turn();
    expect(sender.calls).toHaveLength(1);
  });

  it('a short answer fails the puts it does not cover instead of leaving them waiting', async () => {
    const sender = new HeldSender();
    const batcher = new PutBatcher(sender);
    const outs = ['a', 'b'].map((k) => batcher.put(put(k)).then(() => 'ok', (e: Error) => e.message));
    await turn();
    sender.calls[0]!.resolve([{ revision: 5, prevLease: undefined }]);
    expect(await Promise.all(outs)).toEqual(['ok', 'etcd answered a txn of 2 puts with 1 responses']);
  });
});
