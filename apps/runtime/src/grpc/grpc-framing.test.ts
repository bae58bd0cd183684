import { describe, expect, it } from 'vitest';
import { encodeMessage, GrpcFramingError, MessageDeframer } from './grpc-framing.ts';

const bytes = (s: string) => new Uint8Array(Buffer.from(s));

describe('gRPC framing', () => {
  it('prefixes a message with flag 0 and its big-endian length', () => {
    expect([...encodeMessage(bytes('hi'))]).toEqual([0, 0, 0, 0, 2, 104, 105]);
    expect([...encodeMessage(new Uint8Array(0))]).toEqual([0, 0, 0, 0, 0]);
  });

  it('gives back whole messages however the body is split', () => {
    const wire = Buffer.concat([encodeMessage(bytes('one')), encodeMessage(new Uint8Array(0)), encodeMessage(bytes('three'))]);
    for (let size = 1; size <= wire.length; size++) {
      const d = new MessageDeframer(1024);
      const got: string[] = [];
      for (let i = 0; i < wire.length; i += size) for (const m of d.push(wire.subarray(i, i + size))) got.push(Buffer.from(m).toString());
      d.finish();
      expect(got, `chunks of ${size}`).toEqual(['one', '', 'three']);
    }
  });

  it('refuses a compressed message with UNIMPLEMENTED, and a bad flag with INTERNAL', () => {
    expect(() => new MessageDeframer(10).push(Buffer.from([1, 0, 0, 0, 1, 7]))).toThrow(expect.objectContaining({ status: 12, message: expect.stringContaining('uncompressed') }));
    expect(() => new MessageDeframer(10).push(Buffer.from([2, 0, 0, 0, 0]))).toThrow(GrpcFramingError);
  });

  it('refuses a message over the limit with RESOURCE_EXHAUSTED before it arrives', () => {
    const d = new MessageDeframer(4);
    expect(() => d.push(Buffer.from([0, 0, 0, 0, 5]))).toThrow(expect.objectContaining({ status: 8, message: expect.stringContaining('4-byte limit') }));
    expect(new MessageDeframer(4).push(encodeMessage(bytes('four'))).length).toBe(1);
  });

  it('calls a body that ends inside a message an error', () => {
    const d = new MessageDeframer(10);
    d.push(Buffer.from([0, 0, 0, 0, 3, 1]));
    expect(() => d.finish()).toThrow(expect.objectContaining({ status: 13 }));
  });
});
