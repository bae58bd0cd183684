/**
 * The WGL search against the definition of linearizability executed literally (every real-time
 * respecting order, brute-force.ts) on thousands of small generated histories — correct ones and
 * ones with one answer tampered with — so every shortcut the search takes (memo, backtracking,
 * maybe-applied writes) is checked for both verdicts.
 */
import { seededRandom } from '@orrery/spec';
import { describe, expect, it } from 'vitest';
import { checkLinearizable, type Operation } from './wgl.ts';
import { bruteForceLinearizable } from './brute-force.ts';
import { prepareHistory } from './prepare-history.ts';
import { candidateSetModel, instanceEntry, type SetInput, type SetOutput } from './candidate-set-model.ts';
import { simulateHistory } from './simulated-history.ts';

type Op = Operation<SetInput, SetOutput>;

/** Changes one answer: an entry dropped, added or relabelled, or a write's verdict flipped. */
function tamper(ops: Op[], rnd: () => number): Op[] {
  const out = ops.map((o) => ({ ...o }));
  const victims = out.map((o, i) => ({ o, i })).filter(({ o }) => o.output.kind !== 'unknown');
  if (victims.length === 0) return out;
  const { o, i } = victims[Math.floor(rnd() * victims.length)]!;
  let output: SetOutput = o.output;
  if (o.output.kind === 'instances') {
    const entries = [...o.output.entries];
    const roll = rnd();
    if (roll < 0.35 && entries.length) entries.splice(Math.floor(rnd() * entries.length), 1);
    else if (roll < 0.7) entries.push(instanceEntry(rnd() < 0.5 ? 'x' : 'y', { grp: rnd() < 0.5 ? 'a' : 'b', v: String(Math.floor(rnd() * 6)) }));
    else if (entries.length) entries[0] = entries[0]!.replace('grp=a', 'grp=b');
    output = { kind: 'instances', entries: [...new Set(entries)].sort() };
  } else if (o.output.kind === 'ok') output = { kind: 'not_found' };
  else if (o.output.kind === 'not_found') output = { kind: 'ok' };
  out[i] = { ...o, output };
  return out;
}

describe('WGL agrees with brute force', () => {
  it('on 4 000 small histories, both verdicts well represented', () => {
    const rnd = seededRandom(424242);
    const verdicts = { accepted: 0, rejected: 0 };
    for (let n = 0; n < 4000; n++) {
      const { ops } = simulateHistory({
        seed: 1000 + n,
        clients: 2 + Math.floor(rnd() * 2),
        opsPerClient: 2 + Math.floor(rnd() * 2),
        ids: ['x', 'y'],
        groups: ['a', 'b'],
        unknownRate: 0.15,
      });
      const history = prepareHistory(rnd() < 0.5 ? tamper(ops, rnd) : ops);
      const expected = bruteForceLinearizable(candidateSetModel, history);
      const got = checkLinearizable(candidateSetModel, history);
      if (got.linearizable !== expected) {
        const dump = history.map((o) => `${o.call.toFixed(2)}-${o.ret.toFixed(2)} ${JSON.stringify(o.input)} → ${JSON.stringify(o.output)}`).join('\n');
        expect.fail(`history ${n}: WGL says ${got.linearizable}, brute force ${expected}\n${dump}`);
      }
      verdicts[expected ? 'accepted' : 'rejected']++;
    }
    expect(verdicts.accepted).toBeGreaterThan(1000);
    expect(verdicts.rejected).toBeGreaterThan(800);
  });

  it('brute force refuses histories too long for it', () => {
    const { ops } = simulateHistory({ seed: 1, clients: 3, opsPerClient: 4, ids: ['x'], groups: ['a'] });
    expect(() => bruteForceLinearizable(candidateSetModel, ops)).toThrow(/at most 10/);
  });
});
