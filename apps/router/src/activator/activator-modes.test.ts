import { describe, expect, it } from 'vitest';
import { ACTIVATOR_ANSWER_TTL_MS, ActivatorModes } from './activator-modes.ts';
import type { RevisionRoute } from '../routing/route-table.ts';

const rev = (revision: string, containerConcurrency = 2): RevisionRoute => ({ namespace: 'ns', function: 'f', revision, key: `ns/${revision}`, containerConcurrency, timeoutMs: 1000, replayOnWorkerLoss: false });
const answer = (...modes: Array<[string, boolean]>) => ({ ok: true, activator: modes.map(([revision, inPath]) => ({ namespace: 'ns', revision, inPath, excessBurstCapacity: inPath ? -1 : 3 })) });

describe('ActivatorModes', () => {
  it('in the path by default: admission is capped by containerConcurrency', () => {
    const m = new ActivatorModes();
    expect(m.admitLimit(rev('a'))).toBe(2);
    expect(m.inPath('ns/a')).toBe(true);
  });

  it('out of the path: no cap (the worker queues); in the path again when the answer says so', () => {
    const m = new ActivatorModes();
    expect(m.apply(answer(['a', false], ['b', true]), 0)).toEqual(['ns/a']);
    expect(m.admitLimit(rev('a'))).toBe(0);
    expect(m.admitLimit(rev('b'))).toBe(2);
    expect(m.view()).toEqual([{ namespace: 'ns', revision: 'a', excessBurstCapacity: 3 }]);
    // Still out: not reported as newly leaving.
    expect(m.apply(answer(['a', false]), 1000)).toEqual([]);
    expect(m.apply(answer(['a', true]), 2000)).toEqual([]);
    expect(m.admitLimit(rev('a'))).toBe(2);
  });

  it('a revision missing from the answer, or an answer without modes (an older operator), is in the path', () => {
    const m = new ActivatorModes();
    m.apply(answer(['a', false]), 0);
    m.apply(answer(), 1000);
    expect(m.inPath('ns/a')).toBe(true);
    m.apply(answer(['a', false]), 2000);
    m.apply({ ok: true }, 3000);
    expect(m.inPath('ns/a')).toBe(true);
    m.apply(answer(['a', false]), 4000);
    m.apply('garbage', 5000);
    expect(m.inPath('ns/a')).toBe(true);
  });

  it('answers stop (operator down): back in the path after the TTL', () => {
    const m = new ActivatorModes();
    m.apply(answer(['a', false]), 10_000);
    m.expire(10_000 + ACTIVATOR_ANSWER_TTL_MS - 1);
    expect(m.inPath('ns/a')).toBe(false);
    m.expire(10_000 + ACTIVATOR_ANSWER_TTL_MS);
    expect(m.inPath('ns/a')).toBe(true);
  });
});
