/**
 * "The previous chart version" for the upgrade test: charts/orrery as of the most recent commit
 * whose Chart.yaml `version:` differs from the checkout's, extracted with
 * `git archive <commit> charts/orrery | tar -x` into a folder. CI clones the whole repository
 * (`git clone`), so the history is there; a shallow clone has no such commit to read.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';

const CHART_YAML = 'charts/orrery/Chart.yaml';

/** `version:` of a Chart.yaml's text (undefined when absent or not YAML). */
export function chartVersion(chartYaml: string): string | undefined {
  try {
    const v = (parse(chartYaml) as { version?: unknown } | null)?.version;
    return typeof v === 'string' && v ? v : undefined;
  } catch {
    return undefined;
  }
}

/** One commit that touched Chart.yaml (newest first), with the version its (first) parent had. */
export interface ChartYamlChange {
  commit: string;
  /** The parent commit; undefined for a root commit. */
  parent: string | undefined;
  parentVersion: string | undefined;
}

/**
 * The commit whose chart is the previous version: HEAD when the checkout changed the version
 * without committing it; else the parent of the newest commit that set today's version (its
 * parent had another one, or none: then there is no previous version).
 */
export function previousVersionCommit(current: string, head: { commit: string; version: string | undefined }, changes: readonly ChartYamlChange[]): string | undefined {
  if (head.version !== undefined && head.version !== current) return head.commit;
  for (const c of changes) {
    if (c.parentVersion !== current) return c.parentVersion === undefined ? undefined : c.parent;
  }
  return undefined;
}

export type PreviousChart = { ok: true; commit: string; version: string; dir: string } | { ok: false; reason: string };

const git = (repo: string, args: string[]) => execFileSync('git', ['-C', repo, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 * 1024 * 1024 });
const versionAt = (repo: string, commit: string): string | undefined => {
  try {
    return chartVersion(git(repo, ['show', `${commit}:${CHART_YAML}`]));
  } catch {
    return undefined; // no Chart.yaml at that commit
  }
};

/** Finds the previous chart version of `repo` and extracts it into a new temp folder (`<dir>/charts/orrery`). */
export function extractPreviousChart(repo: string): PreviousChart {
  if (git(repo, ['rev-parse', '--is-shallow-repository']).trim() === 'true') {
    return { ok: false, reason: `${repo} is a shallow clone: the previous chart version is in the history it lacks (git fetch --unshallow)` };
  }
  const current = chartVersion(readFileSync(join(repo, CHART_YAML), 'utf8'));
  if (!current) return { ok: false, reason: `${CHART_YAML} has no version` };
  const head = git(repo, ['rev-parse', 'HEAD']).trim();
  const changes: ChartYamlChange[] = git(repo, ['log', '--format=%H %P', '--', CHART_YAML])
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [commit, parent] = line.split(' ') as [string, string | undefined];
      return { commit, parent, parentVersion: parent ? versionAt(repo, parent) : undefined };
    });
  const commit = previousVersionCommit(current, { commit: head, version: versionAt(repo, head) }, changes);
  if (!commit) return { ok: false, reason: `no commit has a chart version other than ${current}: bump version in ${CHART_YAML} to have an upgrade to test` };
  const dir = mkdtempSync(join(tmpdir(), 'orrery-previous-chart-'));
  execFileSync('bash', ['-c', 'git -C "$1" archive "$2" charts/orrery | tar -x -C "$3"', 'extract', repo, commit, dir], { stdio: ['ignore', 'ignore', 'pipe'] });
  return { ok: true, commit, version: versionAt(repo, commit)!, dir: join(dir, 'charts', 'orrery') };
}
