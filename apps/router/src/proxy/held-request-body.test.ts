import { createServer, request, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { RawRequestBody } from '@orrery/raw-http';
import { HeldRequestBody, heldBodyFits, HELD_BODY_LIMIT } from './held-request-body.ts';

const tick = (): Promise<void> => new Promise((r) => process.nextTick(r));

function rawBody(log: string[] = []): RawRequestBody {
  return new RawRequestBody({ pauseReading: () => log.push('pause socket'), resumeReading: () => log.push('resume socket') });
}

/** Attaches an attempt's listeners as the upstream client does (data, end, error) and records what it gets. */
function read(body: HeldRequestBody): string[] {
  const got: string[] = [];
  body.on('data', (c) => got.push(c.toString()));
  body.on('end', () => got.push('end'));
  body.on('error', (e) => got.push(`error ${e.message}`));
  return got;
}

describe('which bodies are held while they stream to the first worker', () => {
  it('those with a Content-Length up to 64 KiB; never a chunked one (no length known up front)', () => {
    expect(HELD_BODY_LIMIT).toBe(65536);
    expect(heldBodyFits('1')).toBe(true);
    expect(heldBodyFits(String(HELD_BODY_LIMIT))).toBe(true);
    expect(heldBodyFits(String(HELD_BODY_LIMIT + 1))).toBe(false);
    expect(heldBodyFits(undefined)).toBe(false);
  });
});

describe('HeldRequestBody', () => {
  it('streams the raw ingress body to the first attempt and keeps all of it', async () => {
    const source = rawBody();
    const held = new HeldRequestBody(source);
    const got = read(held);
    await tick();
    source.push(Buffer.from('{"item":'));
    source.push(Buffer.from('"apple"}'));
    expect(held.complete).toBe(false);
    source.finish();
    expect(got).toEqual(['{"item":', '"apple"}', 'end']);
    expect(held.complete).toBe(true);
    expect(held.bytes().toString()).toBe('{"item":"apple"}');
    expect(held.bytes()).toBe(held.bytes()); // joined once
    expect(source.didRead).toBe(true); // the ingress body is spent: only the held copy can be sent again
  });

  it('a body that came in one chunk is that chunk, not a copy', async () => {
    const source = rawBody();
    const held = new HeldRequestBody(source);
    read(held);
    await tick();
    const chunk = Buffer.from('one');
    source.push(chunk);
    source.finish();
    expect(held.bytes()).toBe(chunk);
  });

  it('holds what arrived before the reader attached (a request queued in the activator)', async () => {
    const log: string[] = [];
    const source = rawBody(log);
    source.push(Buffer.from('ab'));
    source.finish();
    const held = new HeldRequestBody(source);
    const got = read(held);
    await tick();
    expect(got).toEqual(['ab', 'end']);
    expect(held.bytes().toString()).toBe('ab');
  });

  it('passes chunks to the latest attempt only (a retry before anything was read replaces the listeners)', async () => {
    const source = rawBody();
    const held = new HeldRequestBody(source);
    const first = read(held);
    const second = read(held);
    await tick();
    source.push(Buffer.from('x'));
    source.finish();
    expect([first, second]).toEqual([[], ['x', 'end']]);
    expect(held.bytes().toString()).toBe('x');
  });

  it('keeps recording after the reader detached, without passing on', async () => {
    const source = rawBody();
    const held = new HeldRequestBody(source);
    const onData = (): void => {};
    held.on('data', onData);
    await tick();
    held.removeListener('data', onData);
    source.push(Buffer.from('late'));
    source.finish();
    expect(held.complete).toBe(true);
    expect(held.bytes().toString()).toBe('late');
  });

  it('release (the answer began) drops what it held; what still comes only passes on', async () => {
    const source = rawBody();
    const held = new HeldRequestBody(source);
    const got = read(held);
    await tick();
    source.push(Buffer.from('a'));
    held.release();
    source.push(Buffer.from('b'));
    source.finish();
    expect(got).toEqual(['a', 'b', 'end']);
    expect(held.complete).toBe(false);
  });

  it('with a byte limit (a gRPC body, no length up front): held up to the limit, let go beyond it', async () => {
    const within = rawBody();
    const small = new HeldRequestBody(within, 4);
    read(small);
    await tick();
    within.push(Buffer.from('ab'));
    within.push(Buffer.from('cd'));
    within.finish();
    expect([small.complete, small.bytes().toString()]).toEqual([true, 'abcd']);

    const beyond = rawBody();
    const large = new HeldRequestBody(beyond, 4);
    const got = read(large);
    await tick();
    beyond.push(Buffer.from('abc'));
    beyond.push(Buffer.from('de'));
    beyond.push(Buffer.from('f'));
    beyond.finish();
    // Every chunk still reaches the attempt; nothing is kept to send again.
    expect(got).toEqual(['abc', 'de', 'f', 'end']);
    expect(large.complete).toBe(false);
  });

  it('a client that goes away mid-body leaves nothing to replay, and the attempt hears the error', async () => {
    const source = rawBody();
    const held = new HeldRequestBody(source);
    const got = read(held);
    await tick();
    source.push(Buffer.from('half'));
    source.fail(new Error('aborted'));
    expect(got).toEqual(['half', 'error aborted']);
    expect(held.complete).toBe(false);
  });

  it('pause and resume reach the ingress body (backpressure of the first attempt)', async () => {
    const log: string[] = [];
    const source = rawBody(log);
    const held = new HeldRequestBody(source);
    read(held);
    await tick();
    log.length = 0;
    held.pause();
    source.push(Buffer.from('1'));
    expect(log).toContain('pause socket');
    held.resume();
    source.finish();
    expect(held.bytes().toString()).toBe('1');
    expect(log.at(-1)).toBe('resume socket');
  });

  it('a later attempt while the body still arrives gets what came so far first, then the rest', async () => {
    const source = rawBody();
    const held = new HeldRequestBody(source);
    const first = read(held);
    await tick();
    source.push(Buffer.from('ab'));
    source.push(Buffer.from('cd'));
    expect(held.resendable).toBe(true);
    // The first worker refused it; a chunk arrives before the next attempt attaches.
    source.push(Buffer.from('ef'));
    const second = read(held);
    expect(second).toEqual(['ab', 'cd', 'ef']);
    source.push(Buffer.from('gh'));
    source.finish();
    expect(first).toEqual(['ab', 'cd', 'ef']); // until the next attempt attached
    expect(second).toEqual(['ab', 'cd', 'ef', 'gh', 'end']);
    expect([held.complete, held.bytes().toString()]).toEqual([true, 'abcdefgh']);
  });

  it("the dead attempt's pause does not stall the next one: the source flows again, unless the new attempt's own writes pause it", async () => {
    const log: string[] = [];
    const source = rawBody(log);
    const held = new HeldRequestBody(source);
    read(held);
    await tick();
    source.push(Buffer.from('x'));
    held.pause();
    log.length = 0;
    read(held);
    expect(log).toEqual(['resume socket']);

    const log2: string[] = [];
    const source2 = rawBody(log2);
    const held2 = new HeldRequestBody(source2);
    read(held2);
    await tick();
    source2.push(Buffer.from('y'));
    held2.pause();
    log2.length = 0;
    // This attempt's upstream is full at once: it pauses on the first replayed chunk.
    held2.on('data', () => held2.pause());
    expect(log2).not.toContain('resume socket');
  });

  it('nothing to resend once let go: the answer began, the limit was passed, the client failed', async () => {
    const a = rawBody();
    const released = new HeldRequestBody(a);
    read(released);
    await tick();
    a.push(Buffer.from('1'));
    released.release();
    expect(released.resendable).toBe(false);

    const b = rawBody();
    const over = new HeldRequestBody(b, 2);
    read(over);
    await tick();
    b.push(Buffer.from('123'));
    expect(over.resendable).toBe(false);
    const late = read(over);
    b.push(Buffer.from('4'));
    expect(late).toEqual(['4']); // no replay of what was let go

    const c = rawBody();
    const failed = new HeldRequestBody(c);
    read(failed);
    await tick();
    c.push(Buffer.from('1'));
    c.fail(new Error('aborted'));
    expect(failed.resendable).toBe(false);
  });

  it("holds node's IncomingMessage (the node ingress) the same way", async () => {
    let resolveDone!: (v: { got: string[]; bytes: string; complete: boolean; didRead: boolean }) => void;
    const done = new Promise<{ got: string[]; bytes: string; complete: boolean; didRead: boolean }>((r) => (resolveDone = r));
    const server = createServer((req: IncomingMessage, res) => {
      const held = new HeldRequestBody(req);
      const got: string[] = [];
      held.on('data', (c) => got.push(c.toString()));
      held.on('end', () => {
        resolveDone({ got, bytes: held.bytes().toString(), complete: held.complete, didRead: req.readableDidRead });
        res.end();
      });
      held.on('error', () => {});
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const c = request({ port: (server.address() as AddressInfo).port, host: '127.0.0.1', method: 'POST', headers: { 'content-length': '6' } });
    c.write('abc');
    setTimeout(() => c.end('def'), 20);
    c.on('response', (r) => r.resume());
    const r = await done;
    expect(r.got.join('')).toBe('abcdef');
    expect([r.bytes, r.complete, r.didRead]).toEqual(['abcdef', true, true]);
    server.close();
  });
});
