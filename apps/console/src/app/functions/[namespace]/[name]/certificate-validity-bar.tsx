import type { DomainStatus } from '@orrery/spec';

type Certificate = NonNullable<DomainStatus['certificate']>;
const WIDTH = 140;
const HEIGHT = 10;

/** A certificate's validity window as a bar with a mark at `now`: how much of its life is used. */
export function CertificateValidityBar({ host, certificate, now }: { host: string; certificate: Certificate; now: number }) {
  const from = Date.parse(certificate.notBefore);
  const to = Date.parse(certificate.notAfter);
  const used = to > from ? Math.min(1, Math.max(0, (now - from) / (to - from))) : 1;
  const days = Math.floor((to - now) / 86_400_000);
  const label = days >= 0 ? `expires in ${days} days (${new Date(to).toLocaleDateString()})` : `expired ${-days} days ago`;
  return (
    <span className="muted">
      <svg role="img" aria-label={`Certificate of ${host}: ${label}`} width={WIDTH} height={HEIGHT} data-testid={`cert-bar-${host}`} style={{ verticalAlign: 'middle', marginRight: 6 }}>
        <rect x={0} y={0} width={WIDTH} height={HEIGHT} rx={3} fill="var(--border)" />
        <rect x={0} y={0} width={used * WIDTH} height={HEIGHT} rx={3} fill={days < 14 ? 'var(--warning)' : 'var(--accent)'} />
      </svg>
      {label}
    </span>
  );
}
