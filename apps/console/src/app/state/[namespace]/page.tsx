'use client';
import Link from 'next/link';
import { useParams } from 'next/navigation';
import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { QueryState } from '../../../components/query-state.tsx';
import { useTRPC } from '../../../lib/trpc.ts';
import { formatBytes } from '../format-bytes.ts';
import { KeyspaceHistory } from '../keyspace-history.tsx';
import { KeyspaceUsage } from '../keyspace-usage.tsx';
import { NamespaceQuotas } from '../namespace-quotas.tsx';
import { UsageBar } from '../usage-bar.tsx';
import styles from '../state.module.css';

/** One namespace's quota and every keyspace in it (declared or only holding data), deep-linkable. */
export default function NamespaceStatePage() {
  const params = useParams<{ namespace: string }>();
  const namespace = decodeURIComponent(params.namespace);
  const trpc = useTRPC();
  const usage = useQuery(trpc.state.namespaces.queryOptions({ namespace }));
  const ns = usage.data?.items.find((n) => n.namespace === namespace);
  const [picked, setPicked] = useState<string | undefined>(undefined);
  const keyspace = picked ?? ns?.keyspaces[0]?.keyspace;
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
          <table>
            <thead>
              <tr>
                <th scope="col">Keyspace</th>
                <th scope="col">Declared</th>
                <th scope="col">Keys / maxKeys</th>
                <th scope="col">Keys used</th>
                <th scope="col">Bytes</th>
                <th scope="col">Value-size limit</th>
              </tr>
            </thead>
            <tbody>
              {ns.keyspaces.map((k) => (
                <tr key={k.keyspace} data-testid={`ns-keyspace-${k.keyspace}`}>
                  <th scope="row">
                    <code>{k.keyspace}</code>
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
              ))}
            </tbody>
          </table>
        </section>
      ) : null}
      <KeyspaceUsage namespaces={[namespace]} />
      {ns && keyspace ? (
        <section aria-labelledby="ns-history-title" className="card">
          <h2 id="ns-history-title">History (last hour)</h2>
          <div className={styles.toolbar}>
            <label>
              Keyspace
              <select value={keyspace} onChange={(e) => setPicked(e.target.value)}>
                {ns.keyspaces.map((k) => (
                  <option key={k.keyspace} value={k.keyspace}>
                    {k.keyspace}
                  </option>
                ))}
              </select>
            </label>
          </div>
          <KeyspaceHistory namespace={namespace} keyspace={keyspace} />
        </section>
      ) : null}
    </>
  );
}
