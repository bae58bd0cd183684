'use client';
import type { OrreryFunction } from '@orrery/spec';
import { DataTable } from '../../../../components/data-table.tsx';
import { CertificateValidityBar } from './certificate-validity-bar.tsx';
import styles from './function-detail.module.css';

/** The Function's own host names (spec.domains) and whether the routers serve each (status.domains, decided by the operator). */
export function DomainsPanel({ fn, now }: { fn: OrreryFunction; now: number }) {
  const domains = fn.spec.domains ?? [];
  const status = new Map((fn.status?.domains ?? []).map((d) => [d.host, d]));
  return (
    <section id="domains" className={`card ${styles.panel}`} aria-labelledby="domains-heading">
      <h2 id="domains-heading">Domains</h2>
      <DataTable
        caption="Custom domains"
        data-testid="domains"
        columns={['Host', 'TLS', 'Served', 'Certificate']}
        rows={domains}
        empty={
          <p className="muted" data-testid="domains-none">
            Served on the router&apos;s own host only. Add <code>spec.domains</code> to serve it on a host name of its own, with TLS (docs/domains.md).
          </p>
        }
        row={(d) => {
          const s = status.get(d.host);
          return (
            <tr key={d.host} data-testid={`domain-${d.host}`}>
              <td>
                <code>{d.host}</code>
              </td>
              <td>
                {d.tls ? (
                  <>
                    Secret <code>{d.tls.secretName}</code>
                    {d.redirectToHTTPS ? <div className="muted">HTTP redirects to HTTPS</div> : null}
                  </>
                ) : (
                  <span className="muted">plain HTTP</span>
                )}
              </td>
              <td data-testid={`domain-served-${d.host}`}>
                {s ? (
                  <span className={s.ready ? '' : 'error'} title={s.message}>
                    {s.ready ? 'yes' : s.reason}
                    {s.claimedBy ? ` by ${s.claimedBy}` : ''}
                    {s.problem ? ` (${s.problem})` : ''}
                  </span>
                ) : (
                  <span className="muted">not yet reconciled</span>
                )}
              </td>
              <td>{s?.certificate ? <CertificateValidityBar host={d.host} certificate={s.certificate} now={now} /> : <span className="muted">—</span>}</td>
            </tr>
          );
        }}
      />
    </section>
  );
}
