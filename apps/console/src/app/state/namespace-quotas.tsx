'use client';
import Link from 'next/link';
import { useRouter } from 'next/navigation';
import { statePath } from '@orrery/spec';
import { DataTable } from '../../components/data-table.tsx';
import { formatBytes } from './format-bytes.ts';
import { UsageBar } from './usage-bar.tsx';
import styles from './state.module.css';

export interface NamespaceQuota {
  namespace: string;
  keys: number;
  bytes: number;
  byteBudget: number;
  keyspaces: Array<{ keyspace: string }>;
}

/** Quota inspection per namespace; a row (or its link) drills down to /state/<namespace>. */
export function NamespaceQuotas({ items }: { items: NamespaceQuota[] }) {
  const router = useRouter();
  return (
    <DataTable
      caption="State quota per namespace; open a namespace to see its keyspaces"
      columns={['Namespace', 'Keys', 'Bytes', 'Byte budget', 'Budget used', 'Keyspaces']}
      rows={items}
      row={(n) => {
        const href = statePath(n.namespace);
        return (
          <tr key={n.namespace} data-testid={`namespace-row-${n.namespace}`} onClick={() => router.push(href)} style={{ cursor: 'pointer' }}>
            <th scope="row">
              <Link href={href} onClick={(e) => e.stopPropagation()}>
                {n.namespace}
              </Link>
            </th>
            <td className={styles.num} data-testid={`namespace-keys-${n.namespace}`}>
              {n.keys}
            </td>
            <td className={styles.num}>
              <span data-testid={`namespace-bytes-${n.namespace}`}>{n.bytes}</span> B{n.bytes >= 1024 ? <span className="muted"> ({formatBytes(n.bytes)})</span> : null}
            </td>
            <td className={styles.num}>{n.byteBudget > 0 ? formatBytes(n.byteBudget) : <span className="muted">unlimited</span>}</td>
            <td>
              <UsageBar used={n.bytes} limit={n.byteBudget > 0 ? n.byteBudget : null} what={`${n.namespace} bytes`} />
            </td>
            <td className={styles.num} data-testid={`namespace-keyspaces-${n.namespace}`}>
              {n.keyspaces.length}
            </td>
          </tr>
        );
      }}
    />
  );
}
