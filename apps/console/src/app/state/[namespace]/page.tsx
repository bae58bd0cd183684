'use client';
import Link from 'next/link';
import { useParams, useRouter, useSearchParams } from 'next/navigation';
import { Suspense } from 'react';
import { useQuery } from '@tanstack/react-query';
import { statePath } from '@orrery/spec';
import { DataTable } from '../../../components/data-table.tsx';
import { QueryState } from '../../../components/query-state.tsx';
import { useTRPC } from '../../../lib/trpc.ts';
import { useScrollToHash } from '../../../lib/use-scroll-to-hash.ts';
import { formatBytes } from '../format-bytes.ts';
import { HotKeysPanel } from '../hot-keys-panel.tsx';
import { KeyspaceHistory } from '../keyspace-history.tsx';
import { KeyspaceUsage } from '../keyspace-usage.tsx';
import { KeyspaceWritesPanel } from '../keyspace-writes-panel.tsx';
import { NamespaceQuotas } from '../namespace-quotas.tsx';
import { UsageBar } from '../usage-bar.tsx';
import { chosenKeyspace } from './chosen-keyspace.ts';
import styles from '../state.module.css';

/**
 * One namespace's quota and every keyspace in it (declared or only holding data). The keyspace
 * whose history is shown lives in the URL (`?keyspace=`), so a link or a reload shows the same.
 */
export default function NamespaceStatePage() {
  // useSearchParams needs a Suspense boundary (Next renders the rest without it).
  return (
    <Suspense>
      <NamespaceState />
    </Suspense>
  );
}

function NamespaceState() {
  const params = useParams<{ namespace: string }>();
  const namespace = decodeURIComponent(params.namespace);
  const trpc = useTRPC();
  const usage = useQuery(trpc.state.namespaces.queryOptions({ namespace }));
  const ns = usage.data?.items.find((n) => n.namespace === namespace);
  const router = useRouter();
  const search = useSearchParams();
  const { keyspace, missing } = chosenKeyspace(search.get('keyspace'), ns?.keyspaces.map((k) => k.keyspace) ?? []);
  // Overview alerts link to #hot-keys, rendered once the usage has arrived.
  useScrollToHash(Boolean(ns && keyspace));
  return (
    <>
      <p>
        <Link href="/state">← State</Link>
      </p>
      <h1>
        State in namespace <code>{namespace}</code>
      </h1>
      <section aria-labelledby="ns-quota-title" className="card">
        <h2 id="ns-quota-title">Quota</h2>
        <QueryState isLoading={usage.isLoading} error={usage.error} />
        {usage.data && !ns ? <p className="muted">statesvc has nothing in namespace {namespace}.</p> : null}
        {ns ? <NamespaceQuotas items={[ns]} /> : null}
      </section>
      {ns ? (
        <section aria-labelledby="ns-keyspaces-title" className="card">
          <h2 id="ns-keyspaces-title">Keyspaces</h2>
          <DataTable
            columns={['Keyspace', 'Declared', 'Keys / maxKeys', 'Keys used', 'Bytes', 'Value-size limit']}
            rows={ns.keyspaces}
            row={(k) => (
              <tr key={k.keyspace} data-testid={`ns-keyspace-${k.keyspace}`} aria-current={k.keyspace === keyspace ? 'true' : undefined}>
                <th scope="row">
                  <Link href={statePath(namespace, k.keyspace)} scroll={false} title={`show the history of ${k.keyspace}`}>
                    <code>{k.keyspace}</code>
                  </Link>
                </th>
                <td>{k.declared ? 'yes' : 'no (data without a declaration)'}</td>
                <td className={styles.num}>
                  <span data-testid={`ns-keyspace-keys-${k.keyspace}`}>{k.keys}</span> / {k.maxKeys ?? '—'}
                </td>
                <td>
                  <UsageBar used={k.keys} limit={k.maxKeys ?? null} what={`${k.keyspace} keys`} />
                </td>
                <td className={styles.num}>
                  <span data-testid={`ns-keyspace-bytes-${k.keyspace}`}>{k.bytes}</span> B{k.bytes >= 1024 ? <span className="muted"> ({formatBytes(k.bytes)})</span> : null}
                </td>
                <td className={styles.num}>{k.maxValueBytes ? formatBytes(k.maxValueBytes) : '—'}</td>
              </tr>
            )}
          />
        </section>
      ) : null}
      <KeyspaceUsage namespaces={[namespace]} />
      {ns && keyspace ? <HotKeysPanel namespace={namespace} keyspace={keyspace} /> : null}
      {/* Feed, outcomes and fences exist only for a declared keyspace (statesvc answers NOT_FOUND otherwise). */}
      {ns && keyspace && ns.keyspaces.find((k) => k.keyspace === keyspace)?.declared ? <KeyspaceWritesPanel namespace={namespace} keyspace={keyspace} /> : null}
      {ns && keyspace ? (
        <section aria-labelledby="ns-history-title" className="card">
          <h2 id="ns-history-title">History (last hour)</h2>
          <div className={styles.toolbar}>
            <label>
              Keyspace
              <select value={keyspace} data-testid="history-keyspace" onChange={(e) => router.replace(statePath(namespace, e.target.value), { scroll: false })}>
                {ns.keyspaces.map((k) => (
                  <option key={k.keyspace} value={k.keyspace}>
                    {k.keyspace}
                  </option>
                ))}
              </select>
            </label>
          </div>
          {missing && usage.data ? (
            <p className="warning" role="status">
              Keyspace <code>{missing}</code> from the link holds nothing in {namespace}; showing {keyspace}.
            </p>
          ) : null}
          <KeyspaceHistory namespace={namespace} keyspace={keyspace} />
        </section>
      ) : null}
    </>
  );
}
