import { describe, expect, it } from 'vitest';
import { StateChangeEventSchema, StateErrorBodySchema } from '@orrery/spec';
import { changeEventText, errorEventText, positionText } from './change-event-text.ts';

/** The data of one SSE frame as a reader joins it (data lines joined with \n). */
function dataOf(frame: string): string {
  expect(frame.endsWith('\n\n')).toBe(true);
  return frame
    .slice(0, -2)
    .split('\n')
    .filter((l) => l.startsWith('data: '))
    .map((l) => l.slice(6))
    .join('\n');
}

describe('change feed frames', () => {
  it('a set carries its value as stored; delete and expire carry none; the id is the seq', () => {
    const set = changeEventText({ seq: 7, key: 'cart/"1"', op: 'set', version: 42, value: '{"items":["tea"]}', at: 0 });
    expect(set.split('\n')[0]).toBe('id: 7');
    expect(StateChangeEventSchema.parse(JSON.parse(dataOf(set)))).toEqual({ seq: 7, key: 'cart/"1"', op: 'set', version: 42, value: { items: ['tea'] } });
    const del = changeEventText({ seq: 8, key: 'é', op: 'delete', version: 42, at: 0 });
    expect(JSON.parse(dataOf(del))).toEqual({ seq: 8, key: 'é', op: 'delete', version: 42 });
    expect(JSON.parse(dataOf(changeEventText({ seq: 9, key: 'k', op: 'set', version: 1, value: 'null', at: 0 })))).toEqual({ seq: 9, key: 'k', op: 'set', version: 1, value: null });
  });

  it('line breaks in a stored value (JSON whitespace) never end the frame early', () => {
    const frame = changeEventText({ seq: 1, key: 'k', op: 'set', version: 1, value: '{"a":\r\n1,\r"b":\n2}', at: 0 });
    expect(frame.slice(0, -2)).not.toMatch(/\n\n|\r/);
    expect(JSON.parse(dataOf(frame))).toMatchObject({ value: { a: 1, b: 2 } });
  });

  it('positions and errors', () => {
    expect(positionText(12)).toBe('id: 12\n\n');
    const err = errorEventText('changes_expired', 'too far behind');
    expect(err.startsWith('event: error\n')).toBe(true);
    expect(StateErrorBodySchema.parse(JSON.parse(dataOf(err)))).toEqual({ error: 'too far behind', code: 'changes_expired' });
  });
});
