/**
 * A histogram the request path can afford: one bucket increment, no label hashing (prom-client's
 * observe hashes its labels on every call and showed up in the router's profile). Exposed to
 * Prometheus through a registry entry that renders cumulative buckets at scrape time.
 */
import type { Metric, Registry } from 'prom-client';

export class FastHistogram {
  readonly counts: Float64Array;
  sum = 0;
  count = 0;

  constructor(readonly bounds: readonly number[]) {
    this.counts = new Float64Array(bounds.length + 1);
  }

  observe(value: number): void {
    const b = this.bounds;
    let i = 0;
    while (i < b.length && value > b[i]!) i++;
    this.counts[i]!++;
    this.sum += value;
    this.count++;
  }
}

export function registerHistogram(registry: Registry, name: string, help: string, series: () => Array<{ labels: Record<string, string>; histogram: FastHistogram }>): void {
  const metric = {
    name,
    help,
    type: 'histogram',
    aggregator: 'sum',
    get() {
      const values: Array<{ labels: Record<string, string | number>; value: number; metricName: string }> = [];
      for (const { labels, histogram: h } of series()) {
        let cumulative = 0;
        h.bounds.forEach((le, i) => {
          cumulative += h.counts[i]!;
          values.push({ labels: { ...labels, le }, value: cumulative, metricName: `${name}_bucket` });
        });
        values.push({ labels: { ...labels, le: '+Inf' }, value: h.count, metricName: `${name}_bucket` });
        values.push({ labels, value: h.sum, metricName: `${name}_sum` });
        values.push({ labels, value: h.count, metricName: `${name}_count` });
      }
      return { name, help, type: 'histogram', aggregator: 'sum', values };
    },
    reset() {},
  };
  registry.registerMetric(metric as unknown as Metric);
}
