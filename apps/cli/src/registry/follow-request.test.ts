import { describe, expect, it } from 'vitest';
import type { RegistryRequestView } from '@orrery/spec';
import { followRequest } from './follow-request.ts';

const req = { requestId: 'r-1', label: 'promote reg-4', sentAt: 0 };
const pending: RegistryRequestView = { pendingRequests: [{ id: 'r-1' }], lastRequest: null, conditions: [] };

describe('followRequest', () => {
  it('reports each new progress text once and ends with the operator outcome', async () => {
    const views: RegistryRequestView[] = [
      pending,
      pending,
      { ...pending, conditions: [{ type: 'Progressing', status: 'True', message: 'promoting reg-4' }] },
      { pendingRequests: [], lastRequest: { id: 'r-1', outcome: 'succeeded', message: 'reg-4 votes' }, conditions: [] },
    ];
    let t = 10;
    const seen: string[] = [];
    const r = await followRequest(req, { read: async () => views.shift()!, onProgress: (s) => seen.push(s.text), timeoutMs: 60_000, intervalMs: 0, now: () => t++ });
    expect(r).toEqual({ phase: 'done', outcome: 'succeeded', text: 'promote reg-4: succeeded — reg-4 votes' });
    expect(seen).toEqual([
      'promote reg-4: waiting for the operator (next in line)',
      'promote reg-4: waiting for the operator (next in line); promoting reg-4',
      'promote reg-4: succeeded — reg-4 votes',
    ]);
  });
  it('gives up at the deadline with the last progress text', async () => {
    let t = 10;
    const r = await followRequest(req, { read: async () => pending, onProgress: () => {}, timeoutMs: 5, intervalMs: 0, now: () => (t += 2) });
    expect(r).toEqual({ phase: 'timeout', text: 'promote reg-4: waiting for the operator (next in line)' });
  });
});
