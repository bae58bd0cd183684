import { describe, expect, it } from 'vitest';
import { StateMetrics } from './metrics.ts';

describe('StateMetrics', () => {
  it('renders counters and cumulative duration buckets at scrape time', async () => {
    const m = new StateMetrics();
    m.observe('get', 'ok', 0.0001);
    m.observe('get', 'ok', 0.003);
    m.observe('get', 'not_found', 2);
    m.observe('set', 'quota_keys', 0.0004);
    m.quotaRejected('keys');
    m.quotaRejected('keys');
    const text = await m.registry.metrics();
    expect(text).toContain('orrery_statestore_ops_total{op="get",result="ok"} 2');
    expect(text).toContain('orrery_statestore_ops_total{op="get",result="not_found"} 1');
    expect(text).toContain('orrery_statestore_ops_total{op="set",result="quota_keys"} 1');
    expect(text).toContain('orrery_statestore_quota_rejections_total{kind="keys"} 2');
    expect(text).toContain('# TYPE orrery_statesvc_request_duration_seconds histogram');
    // le is inclusive and cumulative; 2 s lands only in +Inf.
    expect(text).toContain('orrery_statesvc_request_duration_seconds_bucket{op="get",le="0.0002"} 1');
    expect(text).toContain('orrery_statesvc_request_duration_seconds_bucket{op="get",le="0.005"} 2');
    expect(text).toContain('orrery_statesvc_request_duration_seconds_bucket{op="get",le="1"} 2');
    expect(text).toContain('orrery_statesvc_request_duration_seconds_bucket{op="get",le="+Inf"} 3');
    expect(text).toContain('orrery_statesvc_request_duration_seconds_count{op="get"} 3');
    expect(text).toContain('orrery_statesvc_request_duration_seconds_bucket{op="set",le="0.0005"} 1');
    // A scrape does not consume the counts.
    expect(await m.registry.metrics()).toContain('orrery_statestore_ops_total{op="get",result="ok"} 2');
  });
});
