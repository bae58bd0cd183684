import { describe, expect, it } from 'vitest';
import { functionRows, renderStatus } from './status-report.ts';

const fn = (name: string, status: Record<string, unknown>) => ({ kind: 'Function', metadata: { name, namespace: 'default' }, spec: { template: {} }, status });

describe('orrery status rendering', () => {
  it('shows Ready, latest revision and traffic per function, and degraded components with their reason', () => {
    const rows = functionRows([
      fn('canary', {
        latestReadyRevision: 'canary-00002',
        traffic: [
          { revisionName: 'canary-00001', percent: 90, tag: 'stable' },
          { revisionName: 'canary-00002', percent: 10, tag: 'canary', latestRevision: true },
        ],
        conditions: [{ type: 'Ready', status: 'True' }],
      }),
      fn('broken', { conditions: [{ type: 'Ready', status: 'False', reason: 'RevisionFailed' }] }),
    ]);
    expect(rows[0]).toMatchObject({ ready: 'True', latestRevision: 'canary-00002', traffic: 'canary-00001=90%(stable) canary-00002=10%(canary)' });
    expect(rows[1]!.ready).toBe('False (RevisionFailed)');
    const text = renderStatus([{ name: 'console', state: 'Degraded', detail: 'console: not built yet' }], rows);
    expect(text).toMatch(/console\s+Degraded\s+console: not built yet/);
    expect(text).toMatch(/default\s+canary\s+True\s+canary-00002/);
  });

  it('says when the store cannot be listed or holds no functions', () => {
    expect(renderStatus([], [], 'connection refused')).toContain('cannot list them from the store: connection refused');
    expect(renderStatus([], [])).toContain('functions: none');
  });
});
