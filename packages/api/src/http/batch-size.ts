/** The admin API's largest tRPC batch (calls per HTTP request); the console's batch link uses the same. */
export const MAX_BATCH_SIZE = 16;

/**
 * How many calls one request carries: with `?batch=1` the path holds them comma-separated
 * (`/trpc/a,b,c`, commas possibly percent-encoded), otherwise one.
 */
export function batchCallCount(url: string, basePath = '/trpc/'): number {
  const q = url.indexOf('?');
  const path = q < 0 ? url : url.slice(0, q);
  const params = new URLSearchParams(q < 0 ? '' : url.slice(q + 1));
  if (params.get('batch') !== '1') return 1;
  const raw = path.startsWith(basePath) ? path.slice(basePath.length) : path.replace(/^\/+/, '');
  // tRPC decodes the path before splitting it (the console forwards `a%2Cb`): count the same way.
  let procs = raw;
  try {
    procs = decodeURIComponent(raw);
  } catch {
    // malformed escapes: tRPC refuses the request itself
  }
  return procs.split(',').length;
}
