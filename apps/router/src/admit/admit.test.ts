import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { admit, type Admission } from './admit.ts';
import { Endpoint } from './endpoint.ts';
import { hrwKeyState, hrwOwner } from './hrw.ts';

const enc = new TextEncoder();
const eps = (...a: string[]): Endpoint[] => a.map((x) => new Endpoint(x));

describe('admit', () => {
  it('reports no_entry without endpoints, all_busy at capacity, all_quarantined when every endpoint is', () => {
    expect(admit([], 1).result).toBe('no_entry');
    const [a, b] = eps('a:1', 'b:1');
    const x = admit([a!, b!], 1);
    const y = admit([a!, b!], 1);
    expect([x.result, y.result]).toEqual(['admitted', 'admitted']);
    expect(new Set([x.endpoint, y.endpoint]).size).toBe(2);
    expect(admit([a!, b!], 1).result).toBe('all_busy');
    x.release();
    expect(admit([a!, b!], 1, undefined, (addr) => addr === 'a:1' || addr === 'b:1').result).toBe('all_quarantined');
  });

  it('picks the least outstanding endpoint and skips quarantined ones', () => {
    const [a, b, c] = eps('a:1', 'b:1', 'c:1');
    const held: Admission[] = [];
    for (let i = 0; i < 2; i++) held.push(admit([a!], 0));
    held.push(admit([b!], 0));
    // a has 2, b has 1, c has 0 in flight: c wins unless quarantined, then b.
    expect(admit([a!, b!, c!], 0).endpoint).toBe(c);
    expect(a!.inflight + b!.inflight + c!.inflight).toBe(4);
    const r = admit([a!, b!, c!], 0, undefined, (addr) => addr === 'c:1');
    expect(r.endpoint).toBe(b);
  });

  it('release is idempotent', () => {
    const [a] = eps('a:1');
    const r = admit([a!], 1);
    r.release();
    r.release();
    expect(a!.inflight).toBe(0);
    expect(admit([a!], 1).result).toBe('admitted');
  });

  it('uses an endpoint to avoid only when nothing else admits', () => {
    const [a, b] = eps('a:1', 'b:1');
    for (let i = 0; i < 20; i++) {
      const r = admit([a!, b!], 0, undefined, undefined, a);
      expect(r.endpoint).toBe(b);
      r.release();
    }
    expect(admit([a!], 0, undefined, undefined, a).endpoint).toBe(a);
  });

  it('sticky: takes the HRW owner, spills a saturated owner to the next rank and reports the miss', () => {
    const addrs = ['10.0.0.1:80', '10.0.0.2:80', '10.0.0.3:80'];
    const endpoints = eps(...addrs);
    const key = 'session-7';
    const st = hrwKeyState(enc.encode(key));
    const owner = endpoints[hrwOwner(key, addrs)]!;
    const first = admit(endpoints, 1, st);
    expect(first.endpoint).toBe(owner);
    expect(first.hit).toBe(true);
    const second = admit(endpoints, 1, st);
    expect(second.result).toBe('admitted');
    expect(second.endpoint).not.toBe(owner);
    expect(second.hit).toBe(false);
    // The spill goes to the owner among the remaining endpoints.
    const rest = addrs.filter((a) => a !== owner.address);
    expect(second.endpoint!.address).toBe(rest[hrwOwner(key, rest)]);
    first.release();
    second.release();
  });

  it('never exceeds requestsPerPod under any interleaving of admits and releases', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 4 }),
        fc.integer({ min: 1, max: 5 }),
        fc.array(fc.oneof(fc.record({ op: fc.constant('admit' as const), key: fc.option(fc.string({ maxLength: 4 }), { nil: undefined }) }), fc.record({ op: fc.constant('release' as const), pick: fc.nat() }), fc.record({ op: fc.constant('double-release' as const), pick: fc.nat() })), { maxLength: 300 }),
        (limit, n, ops) => {
          const endpoints = eps(...Array.from({ length: n }, (_, i) => `127.0.0.1:${9000 + i}`));
          const held: Admission[] = [];
          for (const o of ops) {
            if (o.op === 'admit') {
              const a = admit(endpoints, limit, o.key === undefined ? undefined : hrwKeyState(enc.encode(o.key)));
              if (a.result === 'admitted') held.push(a);
              else if (held.length < limit * n) return false; // refused although a slot was free
            } else if (held.length > 0) {
              const i = o.pick % held.length;
              held[i]!.release();
              if (o.op === 'double-release') held[i]!.release();
              held.splice(i, 1);
            }
            for (const e of endpoints) if (e.inflight > limit || e.inflight < 0) return false;
            if (endpoints.reduce((s, e) => s + e.inflight, 0) !== held.length) return false;
          }
          return true;
        },
      ),
      { numRuns: 500 },
    );
  });
});
