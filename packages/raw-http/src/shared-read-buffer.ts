/**
 * Socket reads through one buffer for the whole process. By default node gives every read of a
 * socket a native allocation of its own (a 64 KiB block, shrunk to the bytes read and wrapped in
 * an ArrayBuffer that V8 tracks and later frees); a proxied request costs two such reads. With
 * `onread` node reads into a buffer the caller supplies and calls back with the byte count. The
 * bytes are copied at once into a Buffer from node's small-buffer pool, which the receiver owns
 * exactly as it owned node's — nothing keeps a view of the shared buffer past the callback, so
 * one buffer serves every socket (reads and their callbacks never interleave on node's thread).
 * A node byte relay measured both ways: −1.5 to −3.5 µs of CPU per proxied request (docs/
 * performance.md, router section, "2026-12-07: reads through one buffer").
 *
 * Reads go to the receiver until `release()`; from then on they are pushed into the socket's own
 * stream, as node would ('data' listeners, pipe, backpressure), for whoever takes the socket over
 * (node's HTTP server after a handover, a spliced WebSocket).
 */
import { Socket, type SocketConstructorOpts } from 'node:net';
import { handleRead } from './after-this-read.ts';

/** Larger than any single read node makes by default (64 KiB), so no read is cut shorter than before. */
const SHARED_BUFFER_BYTES = 64 * 1024;
const shared = Buffer.allocUnsafe(SHARED_BUFFER_BYTES);

export type ChunkReceiver = (chunk: Buffer) => void;

export class SharedBufferReads {
  private receiver: ChunkReceiver | undefined;
  /** Set once the socket exists (connect() takes the callback before it returns the socket). */
  socket: Socket | undefined;

  constructor(receiver: ChunkReceiver) {
    this.receiver = receiver;
  }

  /** node's onread callback: false stops reading until the socket is resumed. */
  readonly callback = (bytes: number, buf: Buffer): boolean => {
    // A copy from node's pool (below 4 KiB) costs a fraction of the native allocation it replaces.
    const chunk = Buffer.from(buf.subarray(0, bytes));
    const receiver = this.receiver;
    if (receiver !== undefined) {
      handleRead(receiver, chunk);
      return true;
    }
    return this.socket?.push(chunk) ?? true;
  };

  /** node's `onread` option for net.connect(). */
  get onread(): { buffer: Buffer; callback: (bytes: number, buf: Buffer) => boolean } {
    return { buffer: shared, callback: this.callback };
  }

  /** From now on the socket's reads go into its stream, as without this. */
  release(): void {
    this.receiver = undefined;
  }

  get released(): boolean {
    return this.receiver === undefined;
  }
}

interface OnreadSlots {
  buffer: symbol;
  callback: symbol;
}

/**
 * node keeps a socket's onread buffer and callback under symbols of its own; the only public way
 * to set them is connect()'s option. A socket made with that option shows them (by description).
 */
function findOnreadSlots(): OnreadSlots | undefined {
  // The constructor takes the option too (connect() passes it there); node's types list it for connect() only.
  const options = { onread: { buffer: Buffer.alloc(1), callback: () => true } } as SocketConstructorOpts;
  const probe = new Socket(options);
  const byName = new Map(Object.getOwnPropertySymbols(probe).map((s) => [s.description, s]));
  probe.destroy();
  const buffer = byName.get('kBuffer');
  const callback = byName.get('kBufferCb');
  return buffer && callback ? { buffer, callback } : undefined;
}

let slots: OnreadSlots | undefined | null = null;

interface UserBufferHandle {
  useUserBuffer?: (buf: Buffer) => void;
}

/**
 * Puts an accepted plain-TCP socket's reads through the shared buffer, as connect()'s `onread`
 * does for a client socket; undefined (nothing changed: use 'data') where this node offers no
 * way to, or for a socket that is not plain TCP (TLS decrypts in its own layer).
 * Call it before the first read is delivered (in the 'connection' listener).
 */
export function readThroughSharedBuffer(socket: Socket, receiver: ChunkReceiver): SharedBufferReads | undefined {
  if (slots === null) slots = findOnreadSlots();
  if (slots === undefined) return undefined;
  const handle = (socket as unknown as { _handle?: UserBufferHandle & { constructor?: { name?: string } } })._handle;
  if (typeof handle?.useUserBuffer !== 'function' || handle.constructor?.name !== 'TCP') return undefined;
  if (socket.readableLength > 0) return undefined;
  const reads = new SharedBufferReads(receiver);
  reads.socket = socket;
  const s = socket as unknown as Record<symbol, unknown>;
  s[slots.buffer] = shared;
  s[slots.callback] = reads.callback;
  handle.useUserBuffer(shared);
  return reads;
}
