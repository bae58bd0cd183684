import { describe, expect, it } from 'vitest';
import { checkAnswer } from './check-answer.ts';
import { StateNamespacesResponseSchema } from './statesvc-http.ts';

describe('checkAnswer', () => {
  it('passes a matching body through, typed', () => {
    const r = checkAnswer(StateNamespacesResponseSchema, { namespaces: [] });
    expect(r).toEqual({ ok: true, value: { namespaces: [] } });
  });

  it('names the first field that does not match and counts the rest', () => {
    const r = checkAnswer(StateNamespacesResponseSchema, {
      namespaces: [{ namespace: 'a', keys: '1', bytes: 0, byteBudget: 0, keyspaces: [{ keyspace: 'k' }] }],
    });
    expect(r.ok).toBe(false);
    expect(!r.ok && r.problem).toMatch(/^namespaces\.0\.keys: .*expected number.* \(and \d+ more\)$/);
    expect(checkAnswer(StateNamespacesResponseSchema, 'oops')).toMatchObject({ ok: false, problem: expect.stringMatching(/^\(body\): /) });
  });
});
