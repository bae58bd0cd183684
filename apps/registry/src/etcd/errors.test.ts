import { describe, expect, it } from 'vitest';
import { classifyEtcdError } from './errors.ts';

class GRPCDeadlineExceededError extends Error {}
class GRPCUnavailableError extends Error {}
class EtcdLeaseInvalidError extends Error {}

describe('classifyEtcdError', () => {
  const cases: Array<[Error, string, string]> = [
    [new GRPCDeadlineExceededError('4 DEADLINE_EXCEEDED: Deadline exceeded after 2.000s,name resolution: 0.002s,LB pick: 0.001s,remote_addr=10.0.3.4:2379'), 'propose_failed', 'etcd did not answer in time'],
    [new GRPCUnavailableError('14 UNAVAILABLE: No connection established. Last error: Error: connect ECONNREFUSED 10.0.3.4:2379. Resolution note: '), 'read_failed', 'etcd did not answer in time'],
    [new Error('Execution prevented because the circuit breaker is open'), 'read_failed', 'etcd did not answer in time'],
    [new Error('etcdserver: leader changed'), 'not_leader', 'etcd has no leader right now'],
    [new EtcdLeaseInvalidError('etcdserver: requested lease not found'), 'propose_failed', 'etcd did not take the write'],
    [new RangeError('Maximum call stack size exceeded'), 'propose_failed', 'etcd did not take the write'],
  ];

  it("keeps the seed's codes, and etcd's own text out of the message (addresses, gRPC internals) but in the detail", () => {
    for (const [err, code, message] of cases) {
      const c = classifyEtcdError(err, err instanceof GRPCUnavailableError || /circuit/.test(err.message) ? 'read_failed' : 'propose_failed');
      expect(c.code, err.message).toBe(code);
      expect(c.message).toContain(message);
      expect(c.message).not.toMatch(/10\.0\.3\.4|DEADLINE|UNAVAILABLE|ECONNREFUSED|etcdserver|circuit|Maximum call stack/);
      expect(c.detail).toBe(`${err.constructor.name}: ${err.message}`);
    }
  });

  it('shortens the detail to its first line, 300 characters', () => {
    const c = classifyEtcdError(new Error(`${'x'.repeat(400)}\nsecond line`), 'read_failed');
    expect(c.detail).toBe(`Error: ${'x'.repeat(293)}…`);
  });
});
