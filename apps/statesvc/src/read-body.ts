import type { IncomingMessage } from 'node:http';
import { StateStoreError } from '@orrery/statestore';

/**
 * Reads a request body, refusing it as soon as it passes `limit` bytes: the declared
 * Content-Length is checked first, then bytes are counted as chunks arrive, so an oversize
 * body is never buffered. On refusal the request is paused (no more reading).
 */
export function readBoundedBody(req: IncomingMessage, limit: number, tooLarge: () => StateStoreError): Promise<Buffer> {
  const declared = req.headers['content-length'];
  if (declared !== undefined && Number(declared) > limit) {
    req.pause();
    return Promise.reject(tooLarge());
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = (err: Error | null, body?: Buffer) => {
      if (done) return;
      done = true;
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      if (err) reject(err);
      else resolve(body!);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.pause();
        finish(tooLarge());
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => finish(null, chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
    const onError = (err: Error) => finish(err);
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
  });
}
