/**
 * Custom domains on the local backend (domain/domain-backend.ts): Functions from the operator's
 * informer cache (local-object-cache.ts) or the resource store, TLS Secrets from the local secret
 * files (`<data-dir>/secrets/<namespace>/<name>/tls.crt` and `tls.key`, what `orrery secret set`
 * and `orrery tls cert` write), and the routers' certificates as `<data-dir>/router-certs/<host>.pem` — folder 0700, files 0600, each written to
 * a temporary name and renamed, so a router never reads half a file (docs/domains.md).
 */
import { type FSWatcher, watch } from 'node:fs';
import { chmod, mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { LOCAL_ROUTER_CERTS_DIR, LOCAL_SECRETS_DIR, hostOfRouterCertificateFile, localSecretPathSegments, routerCertificateFile } from '@orrery/spec';
import type { ResourceStore } from '@orrery/store';
import type { DomainBackend, TlsSecret } from '../../domain/domain-backend.ts';
import type { LocalObjectCache } from './local-object-cache.ts';

export class LocalDomainBackend implements DomainBackend {
  readonly routerCertificatesAt: string;

  constructor(private readonly o: { store: ResourceStore; dataDir: string; cache?: LocalObjectCache }) {
    this.routerCertificatesAt = join(o.dataDir, LOCAL_ROUTER_CERTS_DIR);
  }

  /**
   * From the operator's informer cache once it has listed Functions (every Function event kicks a
   * pass, so a pass per status write read every Function from the store), else from the store.
   */
  async functions(): Promise<readonly unknown[]> {
    if (this.o.cache?.listed('Function')) return [...this.o.cache.values('Function')];
    return (await this.o.store.list('Function')).items;
  }

  async tlsSecret(namespace: string, name: string): Promise<TlsSecret | undefined> {
    let dir: string;
    try {
      dir = join(this.o.dataDir, ...localSecretPathSegments({ namespace, name }));
    } catch {
      return undefined; // not a valid secret name (admission refuses it; nothing to read)
    }
    const read = async (key: string): Promise<string | undefined> => {
      try {
        return await readFile(join(dir, key), 'utf8');
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw err;
      }
    };
    const [crt, key] = await Promise.all([read('tls.crt'), read('tls.key')]);
    if (crt === undefined && key === undefined) return undefined;
    return { ...(crt !== undefined ? { crt } : {}), ...(key !== undefined ? { key } : {}) };
  }

  async writeRouterCertificates(bundle: ReadonlyMap<string, string>): Promise<void> {
    const dir = this.routerCertificatesAt;
    await mkdir(dir, { recursive: true, mode: 0o700 });
    await chmod(dir, 0o700);
    for (const [host, pem] of bundle) {
      const file = join(dir, routerCertificateFile(host));
      const current = await readFile(file, 'utf8').catch(() => undefined);
      if (current === pem) continue;
      const tmp = `${file}.tmp-${process.pid}`;
      await writeFile(tmp, pem, { mode: 0o600 });
      await chmod(tmp, 0o600);
      await rename(tmp, file);
    }
    for (const f of await readdir(dir)) {
      const host = hostOfRouterCertificateFile(f);
      if (host !== undefined && !bundle.has(host)) await rm(join(dir, f), { force: true });
    }
  }

  /** `orrery secret set` and `orrery tls cert` write files: watch the secrets folder (recursive inotify). */
  onSecretsChanged(listener: () => void): () => void {
    let watcher: FSWatcher | undefined;
    const dir = join(this.o.dataDir, LOCAL_SECRETS_DIR);
    const tryWatch = (): void => {
      if (watcher) return;
      try {
        watcher = watch(dir, { recursive: true, persistent: false }, () => listener());
        watcher.on('error', () => {
          watcher?.close();
          watcher = undefined;
        });
      } catch {
        watcher = undefined; // no secrets yet: the periodic pass looks again
      }
    };
    tryWatch();
    const retry = setInterval(tryWatch, 5_000);
    retry.unref();
    return () => {
      clearInterval(retry);
      watcher?.close();
    };
  }
}
