/**
 * gRPC message framing (gRPC over HTTP/2, "Length-Prefixed-Message"): a compressed flag byte, a
 * 4-byte big-endian length, then the message. The deframer takes body chunks as they come and
 * gives whole messages; it refuses a compressed message (the runtime announces no
 * grpc-accept-encoding, so a client must not send one) and a message over the size limit
 * before buffering it. Pure.
 */

export const FRAME_HEADER_BYTES = 5;

export class GrpcFramingError extends Error {
  constructor(
    /** The gRPC status to end the call with. */
    readonly status: 8 | 12 | 13,
    message: string,
  ) {
    super(message);
  }
}

export function encodeMessage(message: Uint8Array): Buffer {
  const out = Buffer.allocUnsafe(FRAME_HEADER_BYTES + message.length);
  out[0] = 0;
  out.writeUInt32BE(message.length, 1);
  out.set(message, FRAME_HEADER_BYTES);
  return out;
}

export class MessageDeframer {
  private buf: Buffer = Buffer.alloc(0);

  constructor(private readonly maxMessageBytes: number) {}

  /** The whole messages `chunk` completes (zero or more); throws GrpcFramingError. */
  push(chunk: Buffer): Uint8Array[] {
    this.buf = this.buf.length === 0 ? chunk : Buffer.concat([this.buf, chunk]);
    const out: Uint8Array[] = [];
    for (;;) {
      if (this.buf.length < FRAME_HEADER_BYTES) return out;
      const flag = this.buf[0]!;
      const length = this.buf.readUInt32BE(1);
      if (flag === 1) throw new GrpcFramingError(12, 'compressed gRPC messages are not supported: send them uncompressed (no grpc-encoding)');
      if (flag !== 0) throw new GrpcFramingError(13, `malformed gRPC frame: compressed flag ${flag}`);
      if (length > this.maxMessageBytes) throw new GrpcFramingError(8, `a gRPC message of ${length} bytes exceeds the ${this.maxMessageBytes}-byte limit`);
      if (this.buf.length < FRAME_HEADER_BYTES + length) return out;
      // A copy: the function may keep the message beyond the chunk's life.
      out.push(new Uint8Array(this.buf.subarray(FRAME_HEADER_BYTES, FRAME_HEADER_BYTES + length)));
      this.buf = this.buf.subarray(FRAME_HEADER_BYTES + length);
    }
  }

  /** At the end of the request body: bytes of an incomplete message are an error. */
  finish(): void {
    if (this.buf.length > 0) throw new GrpcFramingError(13, `the request body ended inside a gRPC message (${this.buf.length} bytes left over)`);
  }
}
