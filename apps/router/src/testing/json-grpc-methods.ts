/**
 * gRPC method definitions whose messages are JSON bytes: a generic @grpc/grpc-js client or server
 * needs no .proto, and what a test sends is what the worker sees.
 */
export type Json = Record<string, unknown>;

const serialize = (v: Json) => Buffer.from(JSON.stringify(v));
const deserialize = (b: Buffer) => JSON.parse(b.toString()) as Json;

/** One method at `path` (`/package.Service/Method`, behind any routing prefix). */
export const jsonMethod = (path: string, requestStream: boolean, responseStream: boolean) => ({
  path,
  requestStream,
  responseStream,
  requestSerialize: serialize,
  requestDeserialize: deserialize,
  responseSerialize: serialize,
  responseDeserialize: deserialize,
  originalName: path.slice(path.lastIndexOf('/') + 1),
});
