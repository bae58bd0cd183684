import styles from './state.module.css';

/** Share of a limit above which a bar turns red (and says so in words). */
export const OVER_THRESHOLD = 0.9;

/**
 * A horizontal bar of used / limit. Red and labelled "over 90 %" past the threshold, so colour is
 * never the only signal; the bar is an img with the numbers in its label for screen readers.
 */
export function UsageBar({ used, limit, what }: { used: number; limit: number | null; what: string }) {
  if (!limit || limit <= 0) return <span className="muted">no limit</span>;
  const share = used / limit;
  const over = share > OVER_THRESHOLD;
  const percent = Math.round(share * 1000) / 10;
  return (
    <span className={styles.barCell}>
      <span className={`bar${over ? ' over' : ''} ${styles.bar}`} role="img" aria-label={`${what}: ${used} of ${limit} (${percent} %)${over ? ', over 90 %' : ''}`}>
        <span style={{ width: `${Math.min(100, share * 100)}%` }} />
      </span>
      <span className={over ? 'error' : 'muted'}>
        {percent} %{over ? ' ⚠ over 90 %' : ''}
      </span>
    </span>
  );
}
