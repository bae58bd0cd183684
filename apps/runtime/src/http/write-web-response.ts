import type { ServerResponse } from 'node:http';

const CONNECTION_SPECIFIC = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade']);

/**
 * Sends a Web `Response` on a Node response: the head at once (flushed, so the client
 * sees the first byte even if the body is slow), then the body chunk by chunk with
 * backpressure. Resolves when the body is done or the client went away.
 */
export async function writeWebResponse(res: ServerResponse, response: Response, opts: { head?: boolean; extraHeaders?: Record<string, string>; http2?: boolean } = {}): Promise<void> {
  const headers: Record<string, string | string[]> = {};
  response.headers.forEach((value, name) => {
    // HTTP/2 refuses connection-specific fields (RFC 9113 §8.2.2) a handler written for HTTP/1.1 may set.
    if (opts.http2 && CONNECTION_SPECIFIC.has(name)) return;
    if (name !== 'set-cookie') headers[name] = value;
  });
  const cookies = response.headers.getSetCookie();
  if (cookies.length) headers['set-cookie'] = cookies;
  Object.assign(headers, opts.extraHeaders);
  // HTTP/2 has no reason phrase.
  res.writeHead(response.status, (!opts.http2 && response.statusText) || undefined, headers);
  res.flushHeaders();

  if (!response.body || opts.head) {
    await response.body?.cancel();
    res.end();
    return;
  }
  const reader = response.body.getReader();
  let clientGone = false;
  const onClose = () => {
    clientGone = true;
    reader.cancel().catch(() => undefined);
  };
  res.once('close', onClose);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done || clientGone) break;
      if (!res.write(value)) {
        await new Promise<void>((resolve) => {
          const go = () => {
            res.off('drain', go);
            res.off('close', go);
            resolve();
          };
          res.on('drain', go);
          res.on('close', go);
        });
      }
    }
    if (!clientGone) res.end();
  } catch (err) {
    // The handler's body failed after the head went out: the only honest signal left is
    // to cut the connection, so the client does not take a truncated body for a whole one.
    if (!clientGone) res.destroy(err as Error);
    throw err;
  } finally {
    res.off('close', onClose);
    reader.releaseLock();
  }
}
