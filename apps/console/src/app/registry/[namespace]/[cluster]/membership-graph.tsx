import type { Member } from './members-output.ts';
import styles from './registry.module.css';

const W = 620;
const H = 520;
const CX = W / 2;
const CY = 240;
const RING = 175;
/** A halo in the panel colour keeps labels readable where an edge passes behind them. */
const HALO = { paintOrder: 'stroke', stroke: 'var(--panel)', strokeWidth: 4, strokeLinejoin: 'round' } as const;

const HEALTH_COLOUR: Record<Member['health'], string> = { healthy: 'var(--healthy)', unhealthy: 'var(--degraded)', unknown: 'var(--unknown)' };

/**
 * The Raft membership as a picture: the leader in the centre with a "♛ leader" label, followers
 * around it with a line from the leader to each (solid to voters, dashed to learners, which only
 * replicate). Voters are circles marked V, learners dashed squares marked L, and every node
 * spells out its role and health, so neither shape nor colour is the only signal.
 */
export function MembershipGraph({ members }: { members: Member[] }) {
  const leader = members.find((m) => m.isLeader);
  const followers = members.filter((m) => m !== leader);
  const place = new Map<string, { x: number; y: number }>();
  if (leader) place.set(leader.name, { x: CX, y: CY });
  followers.forEach((m, i) => {
    // Offset by half a step so two followers sit left and right of the leader, not on its label.
    const n = Math.max(1, followers.length);
    const a = -Math.PI / 2 + Math.PI / n + (2 * Math.PI * i) / n;
    place.set(m.name, { x: CX + RING * Math.cos(a), y: CY + RING * Math.sin(a) });
  });
  // Crop the drawing to the nodes and their labels (two followers need far less height than five).
  const ys = [...place.values()].map((p) => p.y);
  const top = Math.max(0, Math.min(...ys, CY) - 60);
  const bottom = Math.min(H, Math.max(...ys, CY) + 90);
  const voters = members.filter((m) => m.role === 'voter').length;
  const summary = `${members.length} members: ${voters} voters, ${members.length - voters} learners; ${leader ? `leader ${leader.name}` : 'no leader'}.`;
  return (
    <svg viewBox={`0 ${top} ${W} ${bottom - top}`} className={styles.graph} role="img" aria-label={`Membership graph. ${summary}`} data-testid="membership-graph">
      {leader
        ? followers.map((m) => {
            const p = place.get(m.name)!;
            return (
              <line
                key={`edge-${m.name}`}
                x1={CX}
                y1={CY}
                x2={p.x}
                y2={p.y}
                stroke="var(--muted)"
                strokeWidth={m.role === 'voter' ? 2 : 1.5}
                strokeDasharray={m.role === 'learner' ? '6 4' : undefined}
              />
            );
          })
        : null}
      {!leader ? (
        <text x={CX} y={CY} textAnchor="middle" fill="var(--degraded)" fontSize={15} fontWeight={700} style={HALO}>
          no leader
        </text>
      ) : null}
      {members.map((m) => {
        const p = place.get(m.name)!;
        const colour = HEALTH_COLOUR[m.health];
        const width = m.isLeader ? 4 : 2;
        return (
          <g key={m.name} data-testid={`graph-node-${m.name}`} data-role={m.role} data-leader={m.isLeader ? 'true' : undefined}>
            <title>{`${m.name}: ${m.role}${m.isLeader ? ' (leader)' : ''}, ${m.health}; term ${m.raftTerm ?? '?'}, raft index ${m.raftIndex ?? '?'}, applied ${m.raftAppliedIndex ?? '?'}, lag ${m.lag ?? '?'}`}</title>
            {m.role === 'voter' ? (
              <circle cx={p.x} cy={p.y} r={30} fill="var(--panel)" stroke={colour} strokeWidth={width} />
            ) : (
              <rect x={p.x - 27} y={p.y - 27} width={54} height={54} rx={6} fill="var(--panel)" stroke={colour} strokeWidth={width} strokeDasharray="6 3" />
            )}
            <text x={p.x} y={p.y + 6} textAnchor="middle" fontSize={18} fontWeight={700} fill="var(--text)">
              {m.role === 'voter' ? 'V' : 'L'}
            </text>
            {m.isLeader ? (
              <text x={p.x} y={p.y - 40} textAnchor="middle" fontSize={14} fontWeight={700} fill="var(--warning)" style={HALO}>
                ♛ leader
              </text>
            ) : null}
            <text x={p.x} y={p.y + 48} textAnchor="middle" fontSize={13} fontWeight={700} fill="var(--text)" style={HALO}>
              {m.name}
            </text>
            <text x={p.x} y={p.y + 63} textAnchor="middle" fontSize={12} fill={colour} style={HALO}>
              {m.role} · {m.health}
            </text>
            <text x={p.x} y={p.y + 78} textAnchor="middle" fontSize={11} fill="var(--muted)" style={HALO}>
              term {m.raftTerm ?? '?'} · idx {m.raftIndex ?? '?'} · lag {m.lag ?? '?'}
            </text>
          </g>
        );
      })}
    </svg>
  );
}
