import type { IncomingHttpHeaders } from 'node:http';
import type { IngressRequest, IngressResponse } from '@orrery/raw-http';
import type { StateStoreError } from '@orrery/statestore';
import { nodeHeaderObject } from './node-header-object.ts';
import { bodyEndedEarly } from './read-body.ts';
import type { StateHttpRequest, StateHttpResponse } from './state-http.ts';

/**
 * A state-key request served by the raw ingress (raw-state-server.ts), shown to statesvc's
 * handler as the request and the response it would get from node:http — the members of
 * state-http.ts, nothing more. Headers read as node would have parsed them; the answer goes out
 * through the exchange in one write (head and body together).
 */
export class RawStateExchange implements StateHttpRequest, StateHttpResponse {
  statusCode = 200;
  private headerObject: IncomingHttpHeaders | undefined;
  /** Headers set before writeHead (`Idempotent-Replayed`). */
  private extra: string[] | undefined;

  constructor(private readonly ex: IngressRequest & IngressResponse) {}

  get method(): string {
    return this.ex.method;
  }

  get url(): string {
    return this.ex.url;
  }

  get headers(): IncomingHttpHeaders {
    return (this.headerObject ??= nodeHeaderObject(this.ex.rawHeaders));
  }

  get headersSent(): boolean {
    return this.ex.headersSent;
  }

  setHeader(name: string, value: string): void {
    (this.extra ??= []).push(name, value);
  }

  writeHead(status: number, headers: string[] | Record<string, string | number>): void {
    this.statusCode = status;
    let flat: string[];
    if (Array.isArray(headers)) flat = headers;
    else {
      flat = [];
      for (const name in headers) flat.push(name, String(headers[name]));
    }
    this.ex.writeHead(status, undefined, this.extra === undefined ? flat : [...this.extra, ...flat]);
  }

  end(body?: string): void {
    this.ex.end(body);
  }

  destroy(): void {
    this.ex.destroy();
  }

  /**
   * The whole body (Content-Length framed; the ingress takes only bodies up to statesvc's cap).
   * One above `limit` is refused before a byte is read; the connection then reads and drops it.
   */
  readBody(limit: number, tooLarge: () => StateStoreError): Promise<Buffer> {
    const body = this.ex.body;
    if (body === null) return Promise.resolve(Buffer.alloc(0));
    const declared = Number(this.headers['content-length']);
    if (declared > limit) return Promise.reject(tooLarge());
    return new Promise((resolve, reject) => {
      const chunks: Buffer[] = [];
      let size = 0;
      body.on('data', (chunk) => {
        chunks.push(chunk);
        size += chunk.length;
      });
      body.on('end', () => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size)));
      body.on('error', (err) => reject(bodyEndedEarly(err)));
    });
  }
}
