'use client';
import Link from 'next/link';
import { useQueries } from '@tanstack/react-query';
import { statePath } from '@orrery/spec';
import { DataTable } from '../../components/data-table.tsx';
import { QueryState } from '../../components/query-state.tsx';
import { useTRPC } from '../../lib/trpc.ts';
import { formatBytes } from './format-bytes.ts';
import { UsageBar } from './usage-bar.tsx';
import styles from './state.module.css';

function ttlText(ttl: string | number | null): string {
  if (ttl === null || ttl === '') return 'none';
  return typeof ttl === 'number' ? `${ttl} s` : ttl;
}

/**
 * Keyspace usage of every stateful function in the given namespaces: keys against maxKeys as a
 * bar, and the exact numbers as text (data-testid keyspace-keys-/keyspace-bytes-<ns>-<fn>).
 */
export function KeyspaceUsage({ namespaces, linkNamespaces }: { namespaces: string[]; linkNamespaces?: boolean }) {
  const trpc = useTRPC();
  const results = useQueries({ queries: namespaces.map((namespace) => trpc.state.keyspaces.queryOptions({ namespace })) });
  const rows = results.flatMap((r) => r.data?.items ?? []);
  const loading = results.some((r) => r.isLoading);
  const error = results.find((r) => r.error)?.error ?? null;
  return (
    <section aria-labelledby="keyspace-usage-title" className="card">
      <h2 id="keyspace-usage-title">Keyspace usage per function</h2>
      <QueryState isLoading={loading && rows.length === 0} error={error} />
      <DataTable
        columns={['Function', 'Keyspace', 'Keys / maxKeys', 'Keys used', 'Bytes', 'Value-size limit', 'Default TTL']}
        rows={rows}
        empty={!loading && !error ? <p className="muted">No stateful functions in {namespaces.join(', ') || 'any namespace'}.</p> : null}
        row={(k) => {
          const id = `${k.namespace}-${k.function}`;
          return (
            <tr key={id} data-testid={`keyspace-row-${id}`}>
              <th scope="row">
                {linkNamespaces ? <Link href={statePath(k.namespace)}>{k.namespace}</Link> : k.namespace}/{k.function}
              </th>
              <td>
                <Link href={statePath(k.namespace, k.keyspace)} title={`history of keyspace ${k.keyspace}`}>
                  <code>{k.keyspace}</code>
                </Link>
              </td>
              <td className={styles.num}>
                <span data-testid={`keyspace-keys-${id}`}>{k.keys}</span> / <span data-testid={`keyspace-maxkeys-${id}`}>{k.maxKeys}</span>
              </td>
              <td>
                <UsageBar used={k.keys} limit={k.maxKeys} what={`${k.function} keys`} />
              </td>
              <td className={styles.num}>
                <span data-testid={`keyspace-bytes-${id}`}>{k.bytes}</span> B{k.bytes >= 1024 ? <span className="muted"> ({formatBytes(k.bytes)})</span> : null}
              </td>
              <td className={styles.num}>{formatBytes(k.maxValueBytes)}</td>
              <td>{ttlText(k.defaultTTL)}</td>
            </tr>
          );
        }}
      />
    </section>
  );
}
