/**
 * `orrery up --tls`: every Function's tls.secretName that has no local Secret yet gets one from the
 * development CA (dev-ca.ts), covering the hosts of that Function naming it — so the examples (and
 * a Function applied before `up`) are served over HTTPS at once. A Secret that exists is never
 * replaced: it may hold a real certificate.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { localSecretPathSegments } from '@orrery/spec';
import type { ResourceStore } from '@orrery/store';
import { setLocalSecret } from '../secrets/local-secret-store.ts';
import { issueDevCertificate, type PemPair } from './dev-ca.ts';

interface DomainLike {
  host?: unknown;
  tls?: { secretName?: unknown };
}

/** Secret → hosts it must cover, for Secrets not in the data dir yet. */
export function missingTlsSecrets(functions: readonly unknown[], dataDir: string): Map<string, { namespace: string; name: string; hosts: string[] }> {
  const out = new Map<string, { namespace: string; name: string; hosts: string[] }>();
  for (const f of functions as Array<{ metadata?: { namespace?: string }; spec?: { domains?: DomainLike[] } }>) {
    const namespace = f.metadata?.namespace ?? 'default';
    for (const d of f.spec?.domains ?? []) {
      const name = d.tls?.secretName;
      if (typeof name !== 'string' || typeof d.host !== 'string') continue;
      let crt: string;
      try {
        crt = join(dataDir, ...localSecretPathSegments({ namespace, name, key: 'tls.crt' }));
      } catch {
        continue;
      }
      if (existsSync(crt)) continue;
      const key = `${namespace}/${name}`;
      const entry = out.get(key) ?? { namespace, name, hosts: [] };
      if (!entry.hosts.includes(d.host)) entry.hosts.push(d.host);
      out.set(key, entry);
    }
  }
  return out;
}

/** Issues and stores them; returns one line per Secret made. */
export async function issueMissingDevCertificates(store: ResourceStore, dataDir: string, ca: PemPair): Promise<string[]> {
  const lines: string[] = [];
  for (const s of missingTlsSecrets((await store.list('Function')).items, dataDir).values()) {
    const leaf = await issueDevCertificate(ca, s.hosts);
    setLocalSecret(dataDir, s, 'tls.key', leaf.keyPem);
    setLocalSecret(dataDir, s, 'tls.crt', leaf.certPem);
    lines.push(`development certificate for ${s.hosts.join(', ')} → local Secret ${s.namespace}/${s.name}`);
  }
  return lines;
}
