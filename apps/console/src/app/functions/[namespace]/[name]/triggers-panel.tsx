'use client';
import type { OrreryFunction } from '@orrery/spec';
import { DataTable } from '../../../../components/data-table.tsx';
import { CronRunsStrip } from './cron-runs-strip.tsx';
import { QueueDeliveryBar } from './queue-delivery-bar.tsx';
import styles from './function-detail.module.css';

const when = (t: string | undefined) => (t ? new Date(t).toLocaleString() : '—');

/** The Function's cron and queue triggers (spec.triggers) beside what the operator last reported for each (status.triggers). */
export function TriggersPanel({ fn }: { fn: OrreryFunction }) {
  const cron = fn.spec.triggers?.cron ?? [];
  const queue = fn.spec.triggers?.queue ?? [];
  const cronStatus = new Map((fn.status?.triggers?.cron ?? []).map((s) => [s.name, s]));
  const queueStatus = new Map((fn.status?.triggers?.queue ?? []).map((s) => [s.name, s]));
  return (
    <section id="triggers" className={`card ${styles.panel}`} aria-labelledby="triggers-heading">
      <h2 id="triggers-heading">Triggers</h2>
      {cron.length === 0 && queue.length === 0 ? (
        <p className="muted" data-testid="triggers-none">
          Only HTTP invokes this function. Add <code>spec.triggers.cron</code> or <code>spec.triggers.queue</code> to run it on a schedule or from a queue
          (docs/triggers.md).
        </p>
      ) : null}
      {cron.length > 0 ? (
        <>
          <h3>Cron</h3>
          <DataTable
            caption="Cron triggers"
            data-testid="cron-triggers"
            columns={['Name', 'Schedule', 'Calls', 'Next', 'Last success', 'Missed', 'Last runs']}
            rows={cron}
            row={(t) => {
              const s = cronStatus.get(t.name);
              return (
                <tr key={t.name} data-testid={`cron-${t.name}`}>
                  <td>
                    {t.name}
                    {t.suspend ? <span className="badge warning"> suspended</span> : null}
                  </td>
                  <td>
                    <code>{t.schedule}</code> <span className="muted">{t.timeZone ?? 'UTC'}</span>
                  </td>
                  <td>
                    <code>
                      {t.method} {t.path}
                    </code>
                  </td>
                  <td data-testid={`cron-next-${t.name}`}>{when(s?.nextScheduleTime)}</td>
                  <td>{when(s?.lastSuccessfulTime)}</td>
                  <td>{s?.missedTicks ?? 0}</td>
                  <td>
                    {s?.problem ? <span className="error">{s.problem}</span> : <CronRunsStrip name={t.name} runs={s?.runs ?? []} />}
                  </td>
                </tr>
              );
            }}
          />
        </>
      ) : null}
      {queue.length > 0 ? (
        <>
          <h3>Queue</h3>
          <DataTable
            caption="Queue triggers"
            data-testid="queue-triggers"
            columns={['Name', 'Stream / subject', 'Consuming', 'Pending', 'Delivered', 'Outcomes', 'Last error']}
            rows={queue}
            row={(t) => {
              const s = queueStatus.get(t.name);
              return (
                <tr key={t.name} data-testid={`queue-${t.name}`}>
                  <td>{t.name}</td>
                  <td>
                    <code>{t.stream}</code> / <code>{t.subject}</code>
                    {t.deadLetterSubject ? (
                      <div className="muted">
                        dead letters → <code>{t.deadLetterSubject}</code>
                      </div>
                    ) : null}
                  </td>
                  <td data-testid={`queue-ready-${t.name}`}>{s?.ready ? 'yes' : <span className="warning">{s?.reason ?? 'not yet'}</span>}</td>
                  <td data-testid={`queue-pending-${t.name}`}>{s?.pending ?? '—'}</td>
                  <td>{s?.delivered ?? 0}</td>
                  <td>{s ? <QueueDeliveryBar status={s} /> : null}</td>
                  <td>{s?.lastError ? <span className="error" title={when(s.lastErrorTime)}>{s.lastError}</span> : <span className="muted">none</span>}</td>
                </tr>
              );
            }}
          />
        </>
      ) : null}
    </section>
  );
}
