import { describe, expect, it } from 'vitest';
import { SseParser } from './sse-parser.ts';

describe('SseParser', () => {
  it('parses events split across chunks, multi-line data, ids and comments', () => {
    const p = new SseParser();
    const text = ': hello\nevent: snapshot\nid: 7\ndata: {"a":\ndata: 1}\n\nevent: upsert\r\ndata: x\r\n\r\ndata: plain\n\n';
    const out = [];
    for (const ch of text) out.push(...p.feed(ch));
    expect(out).toEqual([
      { event: 'snapshot', data: '{"a":\n1}', id: '7' },
      { event: 'upsert', data: 'x', id: '7' },
      { event: 'message', data: 'plain', id: '7' },
    ]);
  });
});
