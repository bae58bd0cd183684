/**
 * node:http as an ingress: a thin adapter from IncomingMessage + ServerResponse to the data
 * plane's narrow interface (ingress.ts). It serves `--ingress node` and every connection the raw
 * ingress hands over (HTTP/1.0, chunked bodies, Expect, Upgrade, anything odd).
 */
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { IngressHandler, IngressRequest, IngressResponse, RequestBody, ResponseListener } from '@orrery/raw-http';
import { checkRequestFraming, type FramingRejection } from './request-framing.ts';

const kExchange = Symbol('orrery.ingress');
type Tagged = ServerResponse & { [kExchange]?: NodeHttpExchange };

/* Shared listeners: no closures per request. */
function onClose(this: Tagged): void {
  this[kExchange]?.listener?.onClientClose();
}
function onDrain(this: Tagged): void {
  this[kExchange]?.listener?.onDrain();
}

class NodeHttpExchange implements IngressRequest, IngressResponse {
  listener: ResponseListener | undefined;

  constructor(
    private readonly req: IncomingMessage,
    private readonly res: Tagged,
  ) {}

  get method(): string {
    return this.req.method ?? 'GET';
  }
  get url(): string {
    return this.req.url ?? '/';
  }
  get rawHeaders(): string[] {
    return this.req.rawHeaders;
  }
  get remoteAddress(): string {
    return this.req.socket.remoteAddress ?? '';
  }
  get body(): RequestBody {
    return this.req;
  }
  get readableDidRead(): boolean {
    return this.req.readableDidRead;
  }
  get headersSent(): boolean {
    return this.res.headersSent;
  }
  get destroyed(): boolean {
    return this.res.destroyed;
  }

  writeHead(status: number, statusText: string | undefined, headers: string[]): void {
    try {
      if (statusText) this.res.writeHead(status, statusText, headers);
      else this.res.writeHead(status, headers);
    } catch (err) {
      // node keeps the status text of a head it refused; the error response after it must not inherit it.
      this.res.statusMessage = '';
      throw err;
    }
  }

  write(chunk: Buffer): boolean {
    const ok = this.res.write(chunk);
    if (!ok) this.res.once('drain', onDrain);
    return ok;
  }

  end(lastChunk?: Buffer | string): void {
    if (lastChunk === undefined) this.res.end();
    else this.res.end(lastChunk);
  }

  destroy(err?: Error): void {
    this.res.destroy(err);
  }

  setListener(listener: ResponseListener | undefined): void {
    if (listener && !this.listener) {
      this.res[kExchange] = this;
      this.res.on('close', onClose);
    } else if (!listener && this.listener) {
      this.res.removeListener('close', onClose);
      this.res[kExchange] = undefined;
    }
    this.listener = listener;
  }
}

/**
 * A request the router will not forward (request-framing.ts): answered here, for both
 * ingresses, and the connection closed — after a duplicate Host or an unusable
 * Transfer-Encoding, where the next request would start is not to be trusted.
 */
function refuse(res: ServerResponse, r: FramingRejection): void {
  const body = JSON.stringify({ error: r.message, code: r.code });
  res.shouldKeepAlive = false;
  res.writeHead(r.status, ['content-type', 'application/json', 'content-length', String(Buffer.byteLength(body)), 'connection', 'close']);
  res.end(body);
}

export function nodeHttpListener(handle: IngressHandler): RequestListener {
  return (req, res) => {
    const rejected = checkRequestFraming(req.rawHeaders, req.httpVersion);
    if (rejected) {
      refuse(res, rejected);
      return;
    }
    const ex = new NodeHttpExchange(req, res);
    handle(ex, ex);
  };
}
