import { formatDuration, type BuildTimeline } from './build-timeline.ts';

const WIDTH = 160;
const HEIGHT = 10;

/** How long the build took (or has run so far) as a bar on a round scale, with the number beside it. */
export function BuildDurationBar({ timeline, fill }: { timeline: BuildTimeline; fill: string }) {
  if (timeline.durationMs === undefined) return <span className="muted">not started</span>;
  const took = formatDuration(timeline.durationMs);
  const label = `${timeline.running ? 'running for' : 'took'} ${took}`;
  // The scale is said to screen readers and on hover; on screen the number beside the bar is enough.
  const scale = `the whole bar is ${formatDuration(timeline.scaleMs)}`;
  return (
    <span data-testid="build-duration">
      <svg role="img" aria-label={`Build ${label}; ${scale}`} width={WIDTH} height={HEIGHT} style={{ verticalAlign: 'middle', marginRight: 6 }}>
        <title>{scale}</title>
        <rect x={0} y={0} width={WIDTH} height={HEIGHT} rx={3} fill="var(--border)" />
        <rect x={0} y={0} width={Math.round(timeline.fraction * WIDTH)} height={HEIGHT} rx={3} fill={fill} />
      </svg>
      {label}
    </span>
  );
}
