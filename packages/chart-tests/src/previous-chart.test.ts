import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { chartVersion, extractPreviousChart, previousVersionCommit } from './previous-chart.ts';

describe('chartVersion', () => {
  it('reads version:, not appVersion:', () => {
    expect(chartVersion('apiVersion: v2\nname: orrery\nversion: 0.1.1\nappVersion: "0.1.0"\n')).toBe('0.1.1');
  });
  it('is undefined without a version or for text that is not YAML', () => {
    expect(chartVersion('name: orrery\n')).toBeUndefined();
    expect(chartVersion('version: [\n')).toBeUndefined();
  });
});

describe('previousVersionCommit', () => {
  const change = (commit: string, parent: string | undefined, parentVersion: string | undefined) => ({ commit, parent, parentVersion });
  it('is HEAD when the checkout bumped the version without committing', () => {
    expect(previousVersionCommit('0.2.0', { commit: 'h', version: '0.1.0' }, [change('h', 'p', '0.1.0')])).toBe('h');
  });
  it('is the parent of the newest commit that set today’s version', () => {
    const changes = [change('c3', 'c2', '0.2.0'), change('c2', 'c1', '0.1.0'), change('c1', undefined, undefined)];
    expect(previousVersionCommit('0.2.0', { commit: 'c4', version: '0.2.0' }, changes)).toBe('c1');
  });
  it('is undefined when the version never changed since Chart.yaml appeared', () => {
    expect(previousVersionCommit('0.1.0', { commit: 'c2', version: '0.1.0' }, [change('c2', 'c1', '0.1.0'), change('c1', undefined, undefined)])).toBeUndefined();
  });
});

describe('extractPreviousChart on a real git repository', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });
  const git = (repo: string, ...args: string[]) => execFileSync('git', ['-C', repo, '-c', 'user.name=t', '-c', 'user.email=t@example.invalid', ...args], { encoding: 'utf8' }).trim();
  function repoWithChart(): { repo: string; commit: (version: string, template: string, message: string) => string } {
    const repo = mkdtempSync(join(tmpdir(), 'previous-chart-test-'));
    dirs.push(repo);
    git(repo, 'init', '-q');
    mkdirSync(join(repo, 'charts', 'orrery', 'templates'), { recursive: true });
    return {
      repo,
      commit: (version, template, message) => {
        writeFileSync(join(repo, 'charts', 'orrery', 'Chart.yaml'), `apiVersion: v2\nname: orrery\nversion: ${version}\n`);
        writeFileSync(join(repo, 'charts', 'orrery', 'templates', 'a.yaml'), template);
        git(repo, 'add', '-A');
        git(repo, 'commit', '-q', '--allow-empty', '-m', message);
        return git(repo, 'rev-parse', 'HEAD');
      },
    };
  }
  const extracted = (r: ReturnType<typeof extractPreviousChart>) => {
    if (!r.ok) throw new Error(r.reason);
    dirs.push(join(r.dir, '..', '..'));
    return { ...r, template: readFileSync(join(r.dir, 'templates', 'a.yaml'), 'utf8'), chartYaml: readFileSync(join(r.dir, 'Chart.yaml'), 'utf8') };
  };

  it('takes the last commit before the bump, not the commit that last touched Chart.yaml with the old version', () => {
    const { repo, commit } = repoWithChart();
    commit('0.1.0', 'first', 'c1');
    const beforeBump = commit('0.1.0', 'second', 'c2 (templates only)');
    writeFileSync(join(repo, 'charts', 'orrery', 'templates', 'a.yaml'), 'third');
    git(repo, 'commit', '-qam', 'c3 (templates only, Chart.yaml untouched)');
    const lastOld = git(repo, 'rev-parse', 'HEAD');
    commit('0.1.1', 'fourth', 'c4 bump');
    commit('0.1.1', 'fifth', 'c5');
    const r = extracted(extractPreviousChart(repo));
    expect(r.commit).toBe(lastOld);
    expect(r.commit).not.toBe(beforeBump);
    expect(r.version).toBe('0.1.0');
    expect(r.template).toBe('third');
  });

  it('takes HEAD when the working tree bumped the version', () => {
    const { repo, commit } = repoWithChart();
    commit('0.1.0', 'one', 'c1');
    const head = commit('0.1.0', 'two', 'c2');
    writeFileSync(join(repo, 'charts', 'orrery', 'Chart.yaml'), 'apiVersion: v2\nname: orrery\nversion: 0.1.1\n');
    const r = extracted(extractPreviousChart(repo));
    expect(r.commit).toBe(head);
    expect(r.chartYaml).toContain('version: 0.1.0');
    expect(r.template).toBe('two');
  });

  it('says what to do when the version was never bumped', () => {
    const { repo, commit } = repoWithChart();
    commit('0.1.0', 'one', 'c1');
    commit('0.1.0', 'two', 'c2');
    const r = extractPreviousChart(repo);
    expect(r).toEqual({ ok: false, reason: expect.stringContaining('bump version in charts/orrery/Chart.yaml') });
  });

  it('refuses a shallow clone with the reason', () => {
    const { repo, commit } = repoWithChart();
    commit('0.1.0', 'one', 'c1');
    commit('0.1.1', 'two', 'c2');
    const shallow = mkdtempSync(join(tmpdir(), 'previous-chart-shallow-'));
    dirs.push(shallow);
    execFileSync('git', ['clone', '-q', '--depth', '1', `file://${repo}`, shallow]);
    expect(extractPreviousChart(shallow)).toEqual({ ok: false, reason: expect.stringContaining('shallow clone') });
  });
});
