/**
 * Test plumbing for byte-level HTTP/1.1 checks: writes what the test wants on a raw socket and
 * reads the responses back one by one (status, head text, headers, de-framed body), so a test
 * can see framing headers, pipelining order and when the server closes.
 */
import { connect, type Socket } from 'node:net';

export interface ReadResponse {
  status: number;
  /** Status line and header lines, without the blank line. */
  head: string;
  headers: Array<[string, string]>;
  body: Buffer;
  /** How the body was framed. */
  framing: 'length' | 'chunked' | 'none' | 'close';
}

export type ReadResult = ReadResponse | 'closed' | 'timeout';

export function header(r: ReadResponse, name: string): string | undefined {
  return r.headers.find(([n]) => n.toLowerCase() === name)?.[1];
}

export class ResponseReader {
  private parts: Buffer[] = [];
  private received = 0;
  /** Bytes needed before parsing again is worth it (a body of known length still arriving). */
  private need = 0;
  closed = false;
  private wake: (() => void) | undefined;

  constructor(readonly socket: Socket) {
    socket.on('data', (d: Buffer) => {
      this.parts.push(d);
      this.received += d.length;
      if (this.received >= this.need) this.wake?.();
    });
    socket.on('close', () => {
      this.closed = true;
      this.wake?.();
    });
    socket.on('error', () => {});
  }

  static open(port: number): Promise<ResponseReader> {
    return new Promise((resolve, reject) => {
      const s = connect({ port, host: '127.0.0.1', noDelay: true }, () => resolve(new ResponseReader(s)));
      s.once('error', reject);
    });
  }

  write(data: string | Buffer): void {
    this.socket.write(typeof data === 'string' ? Buffer.from(data, 'latin1') : data);
  }

  /** Everything received and not yet read as a response, as one buffer. */
  private get buf(): Buffer {
    if (this.parts.length !== 1) this.parts = [Buffer.concat(this.parts)];
    return this.parts[0]!;
  }

  private set buf(b: Buffer) {
    this.parts = [b];
    this.received = b.length;
    this.need = 0;
  }

  /** The next response; `headRequest` when it answers a HEAD (no body whatever the headers say). */
  async next(opts: { headRequest?: boolean; timeoutMs?: number } = {}): Promise<ReadResult> {
    const deadline = Date.now() + (opts.timeoutMs ?? 5_000);
    for (;;) {
      const r = this.tryParse(opts.headRequest ?? false);
      if (r) return r;
      if (this.closed) return this.buf.length > 0 ? this.takeUntilClose() : 'closed';
      const left = deadline - Date.now();
      if (left <= 0) return 'timeout';
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, left);
        this.wake = () => {
          clearTimeout(t);
          this.wake = undefined;
          resolve();
        };
      });
    }
  }

  /** Resolves when the server has closed the connection (or after `timeoutMs`, false). */
  async waitClosed(timeoutMs = 5_000): Promise<boolean> {
    const end = Date.now() + timeoutMs;
    while (!this.closed && Date.now() < end) await new Promise((r) => setTimeout(r, 10));
    return this.closed;
  }

  close(): void {
    this.socket.destroy();
  }

  private takeUntilClose(): ReadResult {
    const end = this.buf.indexOf('\r\n\r\n');
    if (end < 0) return 'closed';
    const { status, head, headers } = parseHead(this.buf.toString('latin1', 0, end));
    const body = this.buf.subarray(end + 4);
    this.buf = Buffer.alloc(0);
    return { status, head, headers, body, framing: 'close' };
  }

  private tryParse(headRequest: boolean): ReadResponse | undefined {
    const end = this.buf.indexOf('\r\n\r\n');
    if (end < 0) return undefined;
    const { status, head, headers } = parseHead(this.buf.toString('latin1', 0, end));
    let pos = end + 4;
    const te = headers.find(([n]) => n.toLowerCase() === 'transfer-encoding')?.[1];
    const cl = headers.find(([n]) => n.toLowerCase() === 'content-length')?.[1];
    if (headRequest || status === 204 || status === 304 || (status >= 100 && status < 200)) {
      this.buf = this.buf.subarray(pos);
      return { status, head, headers, body: Buffer.alloc(0), framing: 'none' };
    }
    if (te && /chunked/i.test(te)) {
      const parts: Buffer[] = [];
      for (;;) {
        const nl = this.buf.indexOf('\r\n', pos);
        if (nl < 0) return undefined;
        const size = parseInt(this.buf.toString('latin1', pos, nl), 16);
        if (size === 0) {
          const trailerEnd = this.buf.indexOf('\r\n', nl + 2);
          if (trailerEnd < 0) return undefined;
          this.buf = this.buf.subarray(trailerEnd + 2);
          return { status, head, headers, body: Buffer.concat(parts), framing: 'chunked' };
        }
        if (this.buf.length < nl + 2 + size + 2) return undefined;
        parts.push(this.buf.subarray(nl + 2, nl + 2 + size));
        pos = nl + 2 + size + 2;
      }
    }
    if (cl !== undefined) {
      const n = Number(cl);
      if (this.buf.length < pos + n) {
        this.need = pos + n;
        return undefined;
      }
      const body = Buffer.from(this.buf.subarray(pos, pos + n));
      this.buf = this.buf.subarray(pos + n);
      return { status, head, headers, body, framing: 'length' };
    }
    return undefined; // read until close
  }
}

function parseHead(text: string): { status: number; head: string; headers: Array<[string, string]> } {
  const lines = text.split('\r\n');
  const status = Number(lines[0]!.split(' ')[1]);
  const headers = lines.slice(1).map((l): [string, string] => {
    const c = l.indexOf(':');
    return [l.slice(0, c), l.slice(c + 1).trim()];
  });
  return { status, head: text, headers };
}
