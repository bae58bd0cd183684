'use client';
import { useQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useTRPC } from '../../../../lib/trpc.ts';
import { DataTable } from '../../../../components/data-table.tsx';
import styles from './registry.module.css';

interface Instance {
  namespace: string;
  service: string;
  instanceId: string;
  zone?: string;
  labels?: Record<string, string>;
  endpoints?: Array<{ name: string; protocol: string; host: string; port: number; path?: string }>;
  revision?: number;
}

interface Query {
  registryNamespace: string;
  servicePrefix?: string[];
  selector?: string[];
}

/**
 * Instances browser: the cluster's registry queried with its own selector grammar
 * (`key`, `!key`, `key=value`, `key!=value`, `key in (a,b)`, `key notin (a,b)`, comma = AND).
 * A selector the registry refuses shows its message inline.
 */
export function InstancesBrowser({ namespace, cluster }: { namespace: string; cluster: string }) {
  const trpc = useTRPC();
  const [registryNamespace, setRegistryNamespace] = useState(namespace);
  const [servicePrefix, setServicePrefix] = useState('');
  const [selector, setSelector] = useState('');
  const [query, setQuery] = useState<Query | undefined>(undefined);
  const instances = useQuery({
    ...trpc.registry.instances.queryOptions({ namespace, cluster, registryNamespace: query?.registryNamespace ?? namespace, servicePrefix: query?.servicePrefix, selector: query?.selector, limit: 200 }),
    enabled: query !== undefined,
    // A refused selector stays refused: no retry.
    retry: false,
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setQuery({
      registryNamespace: registryNamespace.trim() || namespace,
      ...(servicePrefix.trim() ? { servicePrefix: [servicePrefix.trim()] } : {}),
      ...(selector.trim() ? { selector: [selector.trim()] } : {}),
    });
  };
  const list = (instances.data?.instances ?? []) as Instance[];
  return (
    <section className="card" aria-labelledby="instances-title">
      <h2 id="instances-title">Instances</h2>
      <form className={styles.toolbar} onSubmit={submit} aria-label="Query the registry">
        <label>
          Registry namespace
          <input value={registryNamespace} onChange={(e) => setRegistryNamespace(e.target.value)} data-testid="instances-namespace" required />
        </label>
        <label>
          Service prefix
          <input value={servicePrefix} onChange={(e) => setServicePrefix(e.target.value)} placeholder="orrery.functions.default" data-testid="instances-service-prefix" />
        </label>
        <label className={styles.wide}>
          Label selector
          <input value={selector} onChange={(e) => setSelector(e.target.value)} placeholder="revision in (cart-00001),!draining" data-testid="instances-selector" aria-describedby="selector-help" />
        </label>
        <button type="submit" className="primary" data-testid="instances-search">
          Search
        </button>
      </form>
      <p id="selector-help" className="muted">
        Selector grammar: <code>key</code>, <code>!key</code>, <code>key=value</code>, <code>key!=value</code>, <code>key in (a,b)</code>, <code>key notin (a,b)</code>; commas join requirements (all must hold).
      </p>
      {instances.error ? (
        <p role="alert" className="error" data-testid="instances-error">
          {instances.error.message}
        </p>
      ) : null}
      {query === undefined ? <p className="muted">Search to list instances.</p> : null}
      {instances.isLoading ? <p className="muted">Loading…</p> : null}
      {instances.data ? (
        <>
          <p className="muted" data-testid="instances-count">
            {list.length} instance{list.length === 1 ? '' : 's'} at registry revision {instances.data.revision}
          </p>
          <DataTable
            columns={['Instance', 'Service', 'Zone', 'Labels', 'Endpoints']}
            rows={list}
            empty={null}
            row={(i) => (
              <tr key={`${i.service}/${i.instanceId}`} data-testid={`instance-${i.instanceId}`} data-service={i.service}>
                <th scope="row">
                  <code>{i.instanceId}</code>
                </th>
                <td>
                  <code>{i.service}</code>
                </td>
                <td>{i.zone || '—'}</td>
                <td>
                  {Object.entries(i.labels ?? {}).map(([k, v]) => (
                    <code key={k} style={{ marginRight: 6 }}>
                      {k}={v}
                    </code>
                  ))}
                </td>
                <td>
                  {(i.endpoints ?? []).map((ep) => (
                    <code key={ep.name} style={{ display: 'block' }}>
                      {ep.name}: {ep.protocol}://{ep.host}:{ep.port}
                      {ep.path ?? ''}
                    </code>
                  ))}
                </td>
              </tr>
            )}
          />
        </>
      ) : null}
    </section>
  );
}
