import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { FunctionSchema, type OrreryFunction } from '@orrery/spec';
import { TriggersPanel } from './triggers-panel.tsx';

const base = {
  apiVersion: 'orrery.dev/v1alpha1',
  kind: 'Function',
  metadata: { name: 'jobs', namespace: 'default' },
  spec: { template: { source: { inline: 'export default () => new Response("ok")' } } },
};
const withTriggers = (triggers: unknown, status?: unknown): OrreryFunction => FunctionSchema.parse({ ...base, spec: { ...base.spec, triggers }, status });

describe('TriggersPanel', () => {
  it('says only HTTP invokes a function without triggers, and where to add one', () => {
    const html = renderToStaticMarkup(<TriggersPanel fn={FunctionSchema.parse(base)} />);
    expect(html).toContain('data-testid="triggers-none"');
    expect(html).toContain('spec.triggers.cron');
    expect(html).not.toContain('<table');
  });

  it('joins each cron trigger with its status: schedule, zone, call, and one square per run painted by outcome', () => {
    const fn = withTriggers(
      { cron: [{ name: 'nightly', schedule: '0 3 * * *', timeZone: 'Europe/Paris' }, { name: 'hourly', schedule: '@hourly', suspend: true }] },
      {
        triggers: {
          cron: [
            {
              name: 'nightly',
              missedTicks: 2,
              nextScheduleTime: '2026-12-04T02:00:00Z',
              runs: [
                { scheduledTime: '2026-12-01T02:00:00Z', outcome: 'Succeeded', statusCode: 200, durationMs: 12 },
                { scheduledTime: '2026-12-02T02:00:00Z', outcome: 'Failed', statusCode: 500, message: 'boom' },
                { scheduledTime: '2026-12-03T02:00:00Z', outcome: 'Missed' },
              ],
            },
          ],
        },
      },
    );
    const html = renderToStaticMarkup(<TriggersPanel fn={fn} />);
    expect(html).toContain('<code>0 3 * * *</code> <span class="muted">Europe/Paris</span>');
    expect(html).toContain('<code>POST /</code>');
    expect(html.match(/data-outcome="(\w+)"/g)).toEqual(['data-outcome="Succeeded"', 'data-outcome="Failed"', 'data-outcome="Missed"']);
    expect(html).toContain('(HTTP 500)');
    expect(html).toContain('— boom');
    expect(html).toMatch(/data-testid="cron-hourly".*suspended/);
    // A trigger the operator has not reported yet shows no runs rather than another trigger's.
    expect(html).toMatch(/data-testid="cron-hourly".*no runs yet/);
    expect(html).toContain('<td>2</td>');
  });

  it('shows a queue trigger\'s consumer state, pending count and the outcome bar scaled to what was delivered', () => {
    const fn = withTriggers(
      { queue: [{ name: 'orders', stream: 'ORDERS', subject: 'orders.*', deadLetterSubject: 'orders-dead' }, { name: 'idle', stream: 'IDLE', subject: 'idle' }] },
      {
        triggers: {
          queue: [
            { name: 'orders', ready: true, pending: 7, delivered: 10, acked: 6, redelivered: 3, deadLettered: 1, lastError: 'HTTP 503' },
            { name: 'idle', ready: false, reason: 'BrokerUnreachable' },
          ],
        },
      },
    );
    const html = renderToStaticMarkup(<TriggersPanel fn={fn} />);
    expect(html).toContain('dead letters → <code>orders-dead</code>');
    expect(html).toContain('data-testid="queue-pending-orders">7<');
    expect(html).toContain('aria-label="6 acked, 3 redelivered, 1 dead-lettered"');
    // 6/10 of 160 px acked, then 3/10 redelivered, 1/10 dead-lettered.
    expect(html).toMatch(/x="0" y="0" width="96"/);
    expect(html).toMatch(/x="96" y="0" width="48"/);
    expect(html).toMatch(/x="144" y="0" width="16"/);
    expect(html).toContain('HTTP 503');
    expect(html).toContain('data-testid="queue-ready-idle"><span class="warning">BrokerUnreachable</span>');
    expect(html).toMatch(/data-testid="queue-idle".*nothing delivered yet/);
  });
});
