/**
 * The router's certificates: the folder the operator fills with `<host>.pem` files of checked
 * certificates (docs/domains.md; on Kubernetes the router-owned Secret mounted as a volume), read
 * into one TLS context per host. Reloaded whenever the folder changes — a file added, replaced or
 * removed, or a Secret volume's atomic `..data` swap — without a restart: each reload builds a
 * new table and swaps it in, so new handshakes get the new certificate while established
 * connections keep theirs. A file that does not load (half-written, key not matching) keeps the
 * host's previous certificate and is reported; nothing of a key is ever logged.
 */
import { createHash } from 'node:crypto';
import { type FSWatcher, watch } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { createSecureContext, type SecureContext } from 'node:tls';
import { hostOfRouterCertificateFile } from '@orrery/spec';
import { leafFacts, splitBundle } from './certificate-bundle.ts';

export interface LoadedCertificate {
  host: string;
  context: SecureContext;
  serialNumber: string;
  notAfter: string;
  /** sha256 of the file: an unchanged file keeps its context. */
  digest: string;
}

export interface FolderLoad {
  table: Map<string, LoadedCertificate>;
  /** Per file that did not load: why (no key material in the text). */
  problems: string[];
}

/** The TLS settings every certificate's context gets: TLS 1.2 and 1.3 only (docs/security.md). */
export const MIN_TLS_VERSION = 'TLSv1.2';

/** Reads every `<host>.pem` of `dir` (a missing folder is an empty table). */
export async function loadCertificateFolder(dir: string, previous: ReadonlyMap<string, LoadedCertificate>): Promise<FolderLoad> {
  const table = new Map<string, LoadedCertificate>();
  const problems: string[] = [];
  let files: string[];
  try {
    files = await readdir(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { table, problems };
    throw err;
  }
  for (const file of files.sort()) {
    const host = hostOfRouterCertificateFile(file);
    if (!host) continue;
    const old = previous.get(host);
    let text: string;
    try {
      text = await readFile(join(dir, file), 'utf8');
    } catch (err) {
      problems.push(`${file}: ${(err as NodeJS.ErrnoException).code ?? 'unreadable'}`);
      if (old) table.set(host, old);
      continue;
    }
    const digest = createHash('sha256').update(text).digest('hex');
    if (old?.digest === digest) {
      table.set(host, old);
      continue;
    }
    const loaded = loadOne(host, text, digest);
    if ('problem' in loaded) {
      problems.push(`${file}: ${loaded.problem}${old ? ' (keeping the previous certificate)' : ''}`);
      if (old) table.set(host, old);
    } else {
      table.set(host, loaded);
    }
  }
  return { table, problems };
}

function loadOne(host: string, text: string, digest: string): LoadedCertificate | { problem: string } {
  const bundle = splitBundle(text);
  if ('problem' in bundle) return bundle;
  const facts = leafFacts(bundle.chainPem, host);
  if (!facts) return { problem: 'the leaf certificate does not parse' };
  if (!facts.coversHost) return { problem: `the certificate does not cover ${host}` };
  try {
    const context = createSecureContext({ cert: bundle.chainPem, key: bundle.keyPem, minVersion: MIN_TLS_VERSION });
    return { host, context, serialNumber: facts.serialNumber, notAfter: facts.notAfter, digest };
  } catch (err) {
    // OpenSSL's words (e.g. "key values mismatch") name no key material.
    return { problem: `TLS refused the pair: ${(err as Error).message}` };
  }
}

export interface CertificateFolderWatch {
  /** The current table; replaced, never mutated, on each reload. */
  readonly table: ReadonlyMap<string, LoadedCertificate>;
  stop(): void;
}

export interface WatchOptions {
  dir: string;
  onLoad: (load: FolderLoad) => void;
  onError: (err: unknown) => void;
  /** Safety-net poll besides fs.watch (a missed inotify event, a folder created later). */
  pollMs?: number;
}

/** Loads the folder now and again on every change (fs.watch, debounced; plus a slow poll of names, sizes and times). */
export async function watchCertificateFolder(o: WatchOptions): Promise<CertificateFolderWatch> {
  let table: ReadonlyMap<string, LoadedCertificate> = new Map();
  let lastStamp = '';
  let running: Promise<void> | undefined;
  let again = false;
  let stopped = false;

  const stamp = async (): Promise<string> => {
    try {
      const names = (await readdir(o.dir)).filter((f) => hostOfRouterCertificateFile(f) !== undefined).sort();
      // stat follows symlinks: a Secret volume's swap changes the target's inode and time.
      const parts = await Promise.all(names.map(async (f) => {
        const s = await stat(join(o.dir, f)).catch(() => undefined);
        return `${f}:${s?.ino ?? '-'}:${s?.size ?? '-'}:${s?.mtimeMs ?? '-'}`;
      }));
      return parts.join('|');
    } catch {
      return 'absent';
    }
  };
  const reload = async (force: boolean): Promise<void> => {
    const now = await stamp();
    if (!force && now === lastStamp) return;
    lastStamp = now;
    const load = await loadCertificateFolder(o.dir, table);
    table = load.table;
    o.onLoad(load);
  };
  // One reload at a time; a change during one runs another after it.
  const trigger = (force = false): void => {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = reload(force)
      .catch(o.onError)
      .finally(() => {
        running = undefined;
        if (again) {
          again = false;
          trigger(true);
        }
      });
  };

  await reload(true).catch(o.onError);
  let debounce: NodeJS.Timeout | undefined;
  let watcher: FSWatcher | undefined;
  const startWatcher = (): void => {
    if (watcher) return;
    try {
      watcher = watch(o.dir, { persistent: false }, () => {
        clearTimeout(debounce);
        debounce = setTimeout(() => trigger(true), 50);
      });
      watcher.on('error', () => {
        watcher?.close();
        watcher = undefined;
      });
    } catch {
      watcher = undefined; // no folder yet: the poll finds it
    }
  };
  startWatcher();
  const poll = setInterval(() => {
    startWatcher();
    trigger();
  }, o.pollMs ?? 2_000);
  poll.unref();
  return {
    get table() {
      return table;
    },
    stop() {
      stopped = true;
      clearInterval(poll);
      clearTimeout(debounce);
      watcher?.close();
    },
  };
}
