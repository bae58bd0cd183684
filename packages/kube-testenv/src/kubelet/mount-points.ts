import { existsSync, readdirSync, rmdirSync, statSync, unlinkSync } from 'node:fs';
import { dirname } from 'node:path';
import { type MountSpec, orderMounts } from './container-launch.ts';

/** A path the launcher creates on the host as a mount point (a folder, or an empty file). */
export interface HostMountPoint {
  path: string;
  file: boolean;
}

const ancestors = (p: string): string[] => {
  const out: string[] = [];
  for (let d = p; d !== '/' && d !== '.'; d = dirname(d)) out.unshift(d);
  return out;
};

/**
 * The mount points a container's mounts make on the host: the parts of each target path that do
 * not exist yet (or that another container made and still uses), unless the target lies inside
 * another of its mounts (then the folder is made in that volume, not on the host).
 */
export function hostMountPoints(mounts: MountSpec[], present: (path: string) => boolean): HostMountPoint[] {
  const ordered = orderMounts(mounts);
  const out = new Map<string, HostMountPoint>();
  ordered.forEach((m, i) => {
    const insideEarlier = ordered.slice(0, i).some((e) => m.target === e.target || m.target.startsWith(`${e.target.replace(/\/$/, '')}/`));
    if (insideEarlier) return;
    const parts = ancestors(m.target);
    parts.forEach((p, j) => {
      if (!present(p) && !out.has(p)) out.set(p, { path: p, file: m.file && j === parts.length - 1 });
    });
  });
  return [...out.values()];
}

/**
 * The mount points the process kubelet made on the host, counted per running container, and
 * removed (if still empty) when the last container that needs one stops, so pods leave no folders
 * like /etc/orrery behind.
 */
export class HostMountPoints {
  private readonly refs = new Map<string, { n: number; file: boolean }>();

  /** Registers what `mounts` will create; returns the release function for when the container stops. */
  acquire(mounts: MountSpec[]): () => void {
    const points = hostMountPoints(mounts, (p) => existsSync(p) && !this.refs.has(p));
    for (const p of points) {
      const r = this.refs.get(p.path);
      if (r) r.n++;
      else this.refs.set(p.path, { n: 1, file: p.file });
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.release(points);
    };
  }

  private release(points: HostMountPoint[]): void {
    // Deepest first, so a folder is empty by the time its parent is tried.
    for (const p of [...points].sort((a, b) => b.path.length - a.path.length)) {
      const r = this.refs.get(p.path);
      if (!r) continue;
      if (--r.n > 0) continue;
      this.refs.delete(p.path);
      try {
        const st = statSync(p.path);
        if (st.isDirectory() && readdirSync(p.path).length === 0) rmdirSync(p.path);
        else if (st.isFile() && st.size === 0) unlinkSync(p.path);
      } catch {
        /* gone already, or not empty: leave it */
      }
    }
  }
}
