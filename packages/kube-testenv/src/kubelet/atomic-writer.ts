import { chmodSync, chownSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, posix } from 'node:path';

/** One file of a secret, configMap, downwardAPI or projected volume. */
export interface FileProjection {
  data: Buffer;
  mode: number;
  /** Owner uid (projected ServiceAccount tokens of a pod whose containers share one runAsUser). */
  uid?: number;
  /** Owner gid (the pod's fsGroup). */
  gid?: number;
}

export type Payload = Map<string, FileProjection>;

const DATA = '..data';

/** Refuses paths that would leave the volume (`..`, absolute) or collide with the writer's own names. */
export function validatePayloadPath(p: string): void {
  if (!p) throw new Error('empty file path in volume payload');
  if (posix.isAbsolute(p)) throw new Error(`volume file path "${p}" must be relative`);
  if (p.split('/').some((s) => s === '..')) throw new Error(`volume file path "${p}" must not contain '..'`);
  if (p.startsWith('..')) throw new Error(`volume file path "${p}" must not start with '..'`);
}

function sameAsCurrent(dir: string, payload: Payload): boolean {
  let current: string;
  try {
    current = join(dir, readlinkSync(join(dir, DATA)));
  } catch {
    return false;
  }
  const files: string[] = [];
  const walk = (rel: string) => {
    for (const e of readdirSync(join(current, rel), { withFileTypes: true })) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) walk(r);
      else files.push(r);
    }
  };
  walk('');
  if (files.length !== payload.size) return false;
  for (const [p, f] of payload) {
    const file = join(current, p);
    if (!existsSync(file)) return false;
    const st = statSync(file);
    if ((st.mode & 0o7777) !== f.mode || (f.uid !== undefined && st.uid !== f.uid) || (f.gid !== undefined && st.gid !== f.gid)) return false;
    if (!readFileSync(file).equals(f.data)) return false;
  }
  return true;
}

const stamp = () => {
  const d = new Date();
  const p = (n: number, w = 2) => String(n).padStart(w, '0');
  return `..${d.getUTCFullYear()}_${p(d.getUTCMonth() + 1)}_${p(d.getUTCDate())}_${p(d.getUTCHours())}_${p(d.getUTCMinutes())}_${p(d.getUTCSeconds())}.`;
};

/**
 * The kubelet's AtomicWriter: a volume's files live in a timestamped folder, `..data` is a
 * symlink to it, and each top-level name is a symlink through `..data`. An update writes a new
 * folder and swaps `..data` with one rename, so a reader sees the old set or the new set, never a
 * mix (and file watchers see the change). With `dirGid` (the pod's fsGroup) the folders belong to
 * that group, setgid, as the kubelet's volume ownership pass leaves them. Returns whether anything
 * changed.
 */
export function writeAtomically(dir: string, payload: Payload, o: { dirGid?: number } = {}): boolean {
  for (const p of payload.keys()) validatePayloadPath(p);
  mkdirSync(dir, { recursive: true });
  if (sameAsCurrent(dir, payload)) return false;
  let oldTs: string | undefined;
  try {
    oldTs = readlinkSync(join(dir, DATA));
  } catch {
    oldTs = undefined;
  }
  const newTs = mkdtempSync(join(dir, stamp()));
  const ownDir = (d: string) => {
    if (o.dirGid === undefined) return chmodSync(d, 0o755);
    chownSync(d, -1, o.dirGid);
    chmodSync(d, 0o2755);
  };
  ownDir(newTs);
  for (const [p, f] of payload) {
    const file = join(newTs, p);
    mkdirSync(dirname(file), { recursive: true });
    for (let d = dirname(file); d !== newTs; d = dirname(d)) ownDir(d);
    writeFileSync(file, f.data);
    if (f.uid !== undefined || f.gid !== undefined) chownSync(file, f.uid ?? -1, f.gid ?? -1);
    chmodSync(file, f.mode);
  }
  const tmpLink = join(dir, '..data_tmp');
  rmSync(tmpLink, { force: true });
  symlinkSync(posix.basename(newTs), tmpLink);
  renameSync(tmpLink, join(dir, DATA));
  const visible = new Set([...payload.keys()].map((p) => p.split('/')[0]!));
  for (const name of visible) {
    const link = join(dir, name);
    let isLink = false;
    try {
      isLink = lstatSync(link).isSymbolicLink();
    } catch {
      /* missing */
    }
    if (!isLink) {
      rmSync(link, { recursive: true, force: true });
      symlinkSync(posix.join(DATA, name), link);
    }
  }
  for (const e of readdirSync(dir)) {
    if (e.startsWith('..') || visible.has(e)) continue;
    rmSync(join(dir, e), { recursive: true, force: true });
  }
  if (oldTs && oldTs !== posix.basename(newTs)) rmSync(join(dir, oldTs), { recursive: true, force: true });
  return true;
}
