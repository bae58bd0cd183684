/**
 * Transfer-Encoding of a request (RFC 9112 §6, RFC 9110 §5.6.1 lists). The router forwards a
 * body it can frame and nothing else: `chunked`, once, is the only transfer coding it accepts.
 * Anything else is refused rather than dropped — dropping a coding the client applied would
 * hand the worker a body that means something other than what was sent. Pure.
 *
 *   no Transfer-Encoding                       → ok, not chunked
 *   `chunked` (any case, empty list elements)  → ok, chunked
 *   another coding, alone or before `chunked`  → 501 unsupported_transfer_encoding
 *   malformed: two header lines, an empty list, a non-token coding, `chunked` twice, with
 *   parameters, or not last; with Content-Length; in an HTTP/1.0 request
 *                                              → 400 bad_transfer_encoding
 *
 * Malformed wins over unsupported: `gzip, chunked, chunked` is a 400.
 */

export type TransferCodingCheck =
  | { ok: true; chunked: boolean }
  | { ok: false; status: 400; code: 'bad_transfer_encoding'; message: string }
  | { ok: false; status: 501; code: 'unsupported_transfer_encoding'; message: string };

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

const NONE: TransferCodingCheck = Object.freeze({ ok: true, chunked: false });
const CHUNKED: TransferCodingCheck = Object.freeze({ ok: true, chunked: true });

function bad(message: string): TransferCodingCheck {
  return { ok: false, status: 400, code: 'bad_transfer_encoding', message };
}

/**
 * @param values every Transfer-Encoding field line's value, in order
 * @param opts.http10 the request line said HTTP/1.0 (which has no transfer codings)
 * @param opts.contentLength the request also carries Content-Length
 */
export function checkTransferEncoding(values: readonly string[], opts: { http10: boolean; contentLength: boolean }): TransferCodingCheck {
  if (values.length === 0) return NONE;
  if (values.length > 1) return bad('Transfer-Encoding is given more than once; send one Transfer-Encoding: chunked');
  if (opts.http10) return bad('HTTP/1.0 requests cannot carry Transfer-Encoding; send Content-Length');
  if (opts.contentLength) return bad('a request cannot carry both Transfer-Encoding and Content-Length');
  const codings: string[] = [];
  for (const element of values[0]!.split(',')) {
    const item = element.trim();
    if (item === '') continue; // RFC 9110 §5.6.1: empty list elements are ignored
    const semi = item.indexOf(';');
    const name = (semi < 0 ? item : item.slice(0, semi)).trim();
    if (!TOKEN.test(name)) return bad(`Transfer-Encoding has a malformed coding ${JSON.stringify(item)}`);
    const lower = name.toLowerCase();
    if (lower === 'chunked' && semi >= 0) return bad('the chunked transfer coding takes no parameters');
    codings.push(lower);
  }
  if (codings.length === 0) return bad('Transfer-Encoding is empty; send Transfer-Encoding: chunked or Content-Length');
  const chunkedCount = codings.filter((c) => c === 'chunked').length;
  if (chunkedCount > 1) return bad('Transfer-Encoding names chunked more than once');
  if (codings[codings.length - 1] !== 'chunked') return bad('chunked must be the last transfer coding of a request (RFC 9112 §6.3)');
  if (codings.length > 1) {
    const other = codings.find((c) => c !== 'chunked')!;
    return {
      ok: false,
      status: 501,
      code: 'unsupported_transfer_encoding',
      message: `the router does not decode the ${JSON.stringify(other)} transfer coding; send the body with Transfer-Encoding: chunked alone or with Content-Length (use Content-Encoding for compression)`,
    };
  }
  return CHUNKED;
}
