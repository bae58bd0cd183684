import { describe, expect, it } from 'vitest';
import { EventStreamParser } from './event-stream-parser.ts';

describe('EventStreamParser', () => {
  it('events with ids, multi-line data, comments and an error event', () => {
    const p = new EventStreamParser();
    const text = 'id: 0\n\n: keep-alive\n\nid: 1\ndata: {"a":\ndata: 1}\n\nevent: error\ndata: {"code":"x"}\n\n';
    expect(p.feed(text)).toEqual([
      { kind: 'position', id: '0' },
      { kind: 'event', event: 'message', data: '{"a":\n1}', id: '1' },
      { kind: 'event', event: 'error', data: '{"code":"x"}', id: '1' },
    ]);
  });

  it('any split of the input gives the same items, with \\n, \\r\\n or \\r line ends', () => {
    const base = 'id: 7\n\nid: 8\ndata: x\n\n: c\nid: 9\ndata: y\ndata: z\n\n';
    for (const eol of ['\n', '\r\n', '\r']) {
      const text = base.replace(/\n/g, eol);
      const whole = new EventStreamParser().feed(text);
      expect(whole).toHaveLength(3);
      for (let cut = 0; cut <= text.length; cut++) {
        const p = new EventStreamParser();
        expect([...p.feed(text.slice(0, cut)), ...p.feed(text.slice(cut))], `${JSON.stringify(eol)} cut at ${cut}`).toEqual(whole);
      }
    }
  });

  it('a block without data or id dispatches nothing; an id with NUL is ignored', () => {
    const p = new EventStreamParser();
    expect(p.feed('event: x\n\n: only a comment\n\nid: a\0b\n\n')).toEqual([]);
  });
});
