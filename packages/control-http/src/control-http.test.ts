import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JsonBodyError, postJson, readJsonBody, sendJson } from './index.ts';

let server: Server;
let url = '';
let handler: (req: IncomingMessage, res: ServerResponse) => Promise<void> = async () => {};

beforeAll(async () => {
  server = createServer((req, res) => {
    handler(req, res).catch((err: unknown) => {
      if (err instanceof JsonBodyError) sendJson(res, err.status, { problem: err.problem, message: err.message });
      else sendJson(res, 500, { message: String(err) });
    });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((ok) => server.close(() => ok())));

/** A raw POST with the given body text and headers. */
function raw(body: string, headers: Record<string, string | number> = {}, chunked = false): Promise<{ status: number; text: string; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    // Chunked: no Content-Length, so only counting the bytes can stop the read.
    const length = chunked ? {} : { 'content-length': Buffer.byteLength(body) };
    const req = request(url, { method: 'POST', headers: { ...length, ...headers } }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode!, text, headers: res.headers }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('readJsonBody and sendJson', () => {
  it('reads a JSON body and answers JSON with its content-length', async () => {
    handler = async (req, res) => sendJson(res, 201, { got: await readJsonBody(req, { limit: 100 }) }, { 'x-extra': '1' });
    const r = await raw('{"a":[1,2]}');
    expect(r).toMatchObject({ status: 201, text: '{"got":{"a":[1,2]}}' });
    expect(r.headers['content-length']).toBe(String(r.text.length));
    expect(r.headers['x-extra']).toBe('1');
  });

  it('refuses a declared Content-Length over the limit with 413 before reading, and counts undeclared bytes', async () => {
    handler = async (req, res) => sendJson(res, 200, await readJsonBody(req, { limit: 10 }));
    expect(await raw('{"a":"0123456789"}')).toMatchObject({ status: 413, text: expect.stringContaining('too_large') });
    expect(await raw('{"a":"0123456789"}', {}, true)).toMatchObject({ status: 413, text: expect.stringContaining('too_large') });
    expect(await raw('{"a":1}', {}, true)).toMatchObject({ status: 200, text: '{"a":1}' });
  });

  it('not JSON is 400 not_json; an empty body is not JSON unless `empty` says what it reads as', async () => {
    handler = async (req, res) => sendJson(res, 200, await readJsonBody(req, { limit: 100 }));
    expect(await raw('{nope')).toMatchObject({ status: 400, text: expect.stringContaining('not_json') });
    expect(await raw('')).toMatchObject({ status: 400 });
    handler = async (req, res) => sendJson(res, 200, await readJsonBody(req, { limit: 100, empty: {} }));
    expect(await raw('  ')).toMatchObject({ status: 200, text: '{}' });
  });

  it('sendJson leaves a response that already started alone', async () => {
    handler = async (_req, res) => {
      sendJson(res, 200, { first: true });
      expect(() => sendJson(res, 500, { second: true })).not.toThrow();
    };
    expect(await raw('')).toMatchObject({ status: 200, text: '{"first":true}' });
  });
});

describe('postJson', () => {
  it('sends JSON with the given headers and parses the answer; any status is an answer', async () => {
    handler = async (req, res) => sendJson(res, 409, { auth: req.headers.authorization, body: await readJsonBody(req, { limit: 100 }) });
    expect(await postJson(url, { x: 1 }, { headers: { authorization: 'Bearer t' } })).toEqual({ status: 409, body: { auth: 'Bearer t', body: { x: 1 } } });
  });

  it('an answer that is not a JSON object reads as {}', async () => {
    handler = async (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' }).end('[1,2]');
    };
    expect(await postJson(url, {})).toEqual({ status: 200, body: {} });
  });

  it('a server that does not answer within timeoutMs fails the call, naming the URL', async () => {
    handler = () => new Promise(() => {});
    await expect(postJson(url, {}, { timeoutMs: 200 })).rejects.toThrow(`no answer from ${url} within 200 ms`);
  });
});
