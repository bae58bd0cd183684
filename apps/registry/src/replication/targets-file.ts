/**
 * The seed's `[replication] targets_file`: the other regions' registries this one follows
 * through their `/internal/v1/replication/watch`, so Prometheus SD can answer `scope=merged`.
 * The seed does not spell the file's format; Orrery's is JSON:
 *
 *   {"targets": [{"region": "cn-bj", "url": "http://10.0.0.21:8080", "namespaces": ["prod"],
 *                 "clusterId": "200", "token": "…"}]}
 *
 * `namespaces`: the replication watch is per namespace (required, at least one). `clusterId`
 * labels the replicated targets (default: the region). `token`: the other registry's
 * replication_token (default: this registry's own, as a shared token across regions).
 */
import { z } from 'zod';
import type { Parsed } from '../model/service-name.ts';

const NAMESPACE = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

const TargetSchema = z
  .object({
    region: z.string().min(1).max(63),
    url: z.string().regex(/^https?:\/\/[^\s/]+\/?$/, 'must be http(s)://host:port with no path'),
    namespaces: z.array(z.string().regex(NAMESPACE, 'must be a lowercase DNS label')).min(1),
    clusterId: z.string().min(1).max(63).optional(),
    token: z.string().min(1).optional(),
  })
  .strict();
const FileSchema = z.object({ targets: z.array(TargetSchema) }).strict();

export interface ReplicationTarget {
  region: string;
  url: string;
  namespaces: string[];
  clusterId: string;
  token: string;
}

/** Parses the file's text; `ownRegion` may not be a target's (a region does not follow itself). */
export function parseTargetsFile(text: string, ownRegion: string, ownToken: string): Parsed<ReplicationTarget[]> {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    return { ok: false, message: `replication targets file is not JSON: ${(err as Error).message}` };
  }
  const r = FileSchema.safeParse(raw);
  if (!r.success) {
    const issue = r.error.issues[0]!;
    return { ok: false, message: `replication targets file: ${issue.path.join('.') || '(top level)'} ${issue.message} (expected {"targets":[{"region","url","namespaces":[…]}]})` };
  }
  const seen = new Set<string>();
  const out: ReplicationTarget[] = [];
  for (const t of r.data.targets) {
    if (t.region === ownRegion) return { ok: false, message: `replication targets file: region "${t.region}" is this registry's own region` };
    if (seen.has(t.region)) return { ok: false, message: `replication targets file: region "${t.region}" is listed twice` };
    seen.add(t.region);
    out.push({ region: t.region, url: t.url.replace(/\/$/, ''), namespaces: [...new Set(t.namespaces)].sort(), clusterId: t.clusterId ?? t.region, token: t.token ?? ownToken });
  }
  return { ok: true, value: out };
}
