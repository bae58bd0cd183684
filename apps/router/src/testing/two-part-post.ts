/**
 * A POST whose body the client sends in two parts, the second when the test says: the first part
 * goes out at once (with the whole body's Content-Length), `finish` sends the rest. For the tests
 * of a request whose worker refused it or was lost while its body was still arriving.
 */
import { request } from 'node:http';

export interface TwoPartPost<T> {
  /** The answer: status and JSON body. */
  answer: Promise<{ status: number; json: T }>;
  /** Sends the rest of the body and ends the request. */
  finish(): void;
}

export function twoPartPost<T>(url: string, contentType: string, first: string, rest: string): TwoPartPost<T> {
  let req!: ReturnType<typeof request>;
  const answer = new Promise<{ status: number; json: T }>((resolve, reject) => {
    req = request(url, { method: 'POST', headers: { 'content-type': contentType, 'content-length': String(Buffer.byteLength(first) + Buffer.byteLength(rest)) } }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (d: string) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode!, json: JSON.parse(text) as T }));
    });
    req.on('error', reject);
  });
  req.write(first);
  return { answer, finish: () => req.end(rest) };
}
