import { describe, expect, it } from 'vitest';
import type { StateClient } from '@orrery/sdk';
import type { FunctionContext } from './function-context.ts';
import { bindInvocation, replayRetentionSeconds } from './replayable-invocation.ts';
import { NO_TRACE } from './tracing/invocation-trace.ts';

const ID = 'fedcba9876543210fedcba9876543210';

/** A state client that only says how it was bound. */
function stateClient(bound: Array<{ id: string; retentionSeconds: number }>): StateClient {
  return {
    withInvocation(id: string, o: { retentionSeconds: number }) {
      bound.push({ id, ...o });
      return { bound: id } as unknown as StateClient;
    },
  } as unknown as StateClient;
}

const ctxWith = (state: StateClient | undefined): FunctionContext =>
  ({ state, namespace: 'shop', function: 'counter', revision: 'counter-00001', log: undefined as never, trace: NO_TRACE });

describe('bindInvocation', () => {
  it('numbers ctx.state by the id and exposes the id', () => {
    const bound: Array<{ id: string; retentionSeconds: number }> = [];
    const ctx = bindInvocation(ctxWith(stateClient(bound)), ID, 30_000);
    expect(bound).toEqual([{ id: ID, retentionSeconds: 120 }]);
    expect(ctx.invocationId).toBe(ID);
    expect(ctx.state).toEqual({ bound: ID });
  });

  it('a stateless function still gets the id', () => {
    const ctx = bindInvocation(ctxWith(undefined), ID, 30_000);
    expect(ctx.invocationId).toBe(ID);
    expect(ctx.state).toBeUndefined();
  });

  it('leaves ctx alone without an id or with one the router would not mint', () => {
    // The SDK accepts 16–64 URL-safe characters for ids an author picks; the router mints 32 lower-case hex digits only.
    for (const id of [undefined, '', 'short', `${ID},${ID}`, `${ID} x`, 'ü'.repeat(20), 'abcdefghijklmnop', ID.toUpperCase(), `${ID}0`, ID.slice(1)]) {
      const bound: Array<{ id: string; retentionSeconds: number }> = [];
      const base = ctxWith(stateClient(bound));
      expect(bindInvocation(base, id, 30_000)).toBe(base);
      expect(bound).toEqual([]);
    }
  });
});

describe('replayRetentionSeconds', () => {
  it('covers every run the router may make: four timeouts, at least a minute, whole seconds', () => {
    expect(replayRetentionSeconds(300_000)).toBe(1200);
    expect(replayRetentionSeconds(30_000)).toBe(120);
    expect(replayRetentionSeconds(1_000)).toBe(60);
    expect(replayRetentionSeconds(20_500)).toBe(84);
  });
});
