import type { QueueTriggerStatus } from '@orrery/spec';

const WIDTH = 160;
const HEIGHT = 12;

/**
 * What became of one queue trigger's deliveries as one bar: acked, redelivered and dead-lettered
 * shares of everything delivered (the counts are the operator's; this only scales them).
 */
export function QueueDeliveryBar({ status }: { status: QueueTriggerStatus }) {
  const parts: Array<[string, number, string]> = [
    ['acked', status.acked ?? 0, 'var(--healthy)'],
    ['redelivered', status.redelivered ?? 0, 'var(--warning)'],
    ['dead-lettered', status.deadLettered ?? 0, 'var(--degraded)'],
  ];
  const total = parts.reduce((sum, [, n]) => sum + n, 0);
  if (total === 0) return <span className="muted">nothing delivered yet</span>;
  let x = 0;
  return (
    <svg role="img" aria-label={parts.map(([label, n]) => `${n} ${label}`).join(', ')} width={WIDTH} height={HEIGHT} data-testid={`queue-bar-${status.name}`}>
      {parts.map(([label, n, fill]) => {
        const w = (n / total) * WIDTH;
        const rect = w > 0 ? <rect key={label} x={x} y={0} width={w} height={HEIGHT} fill={fill}><title>{`${n} ${label}`}</title></rect> : null;
        x += w;
        return rect;
      })}
    </svg>
  );
}
