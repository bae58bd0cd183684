import { describe, expect, it } from 'vitest';
import { registryRequestStatus, type TrackedRegistryRequest } from './registry-cluster-request-status.ts';

const req: TrackedRegistryRequest = { requestId: 'r-1', label: 'promote registry-4', sentAt: 1000 };
const view = (over: Partial<Parameters<typeof registryRequestStatus>[1] & object> = {}) => ({ pendingRequests: [], lastRequest: null, conditions: [], ...over });

describe('registryRequestStatus', () => {
  it('is done with the outcome once lastRequest names it', () => {
    const s = registryRequestStatus(req, view({ lastRequest: { id: 'r-1', outcome: 'rejected', message: 'registry-4 already votes' } }), 2000);
    expect(s).toEqual({ phase: 'done', outcome: 'rejected', text: 'promote registry-4: rejected — registry-4 already votes' });
  });
  it('is pending while queued, with the step in progress', () => {
    const s = registryRequestStatus(req, view({ pendingRequests: [{ id: 'r-0' }, { id: 'r-1' }], conditions: [{ type: 'Progressing', status: 'True', message: 'adding learner registry-4: 40 % caught up' }] }), 2000);
    expect(s.phase).toBe('pending');
    expect(s.text).toBe('promote registry-4: waiting for the operator (1 request ahead); adding learner registry-4: 40 % caught up');
  });
  it('does not call a request done from data fetched before it was sent', () => {
    expect(registryRequestStatus(req, view(), 900).phase).toBe('sent');
    expect(registryRequestStatus(req, view({ lastRequest: { id: 'r-2', outcome: 'succeeded', message: 'ok' } }), 1500)).toMatchObject({ phase: 'done', outcome: 'handled' });
  });
});
