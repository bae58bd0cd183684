import { describe, expect, it } from 'vitest';
import { createRouterMetrics } from './metrics.ts';
import { RouterStats } from './router-stats.ts';

describe('router metrics', () => {
  it('uses the standard process_* and nodejs_* names, without a prefix', async () => {
    const text = await createRouterMetrics(new RouterStats(), () => []).registry.metrics();
    expect(text).toMatch(/^process_cpu_user_seconds_total /m);
    expect(text).toMatch(/^nodejs_eventloop_lag_seconds /m);
    expect(text).not.toContain('orrery_router_process_');
    expect(text).toContain('# TYPE orrery_router_admit_results_total counter');
  });
});
