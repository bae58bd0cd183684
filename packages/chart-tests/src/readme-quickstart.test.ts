import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from './chart-files.ts';
import { quickstartLine, readmeQuickstart } from './readme-quickstart.ts';

const README = readFileSync(join(repoRoot, 'README.md'), 'utf8');
const CLI_VERSION = (JSON.parse(readFileSync(join(repoRoot, 'apps', 'cli', 'package.json'), 'utf8')) as { version: string }).version;

describe('readmeQuickstart', () => {
  it('splits the marked block into commands and comments, skipping blank lines', () => {
    const text = 'intro\n<!-- kubernetes-quickstart: x -->\n```sh\nhelm install a b   # first\n\nnpm pack -w x && npm i -g ./y.tgz\n```\n```sh\nnot this\n```';
    expect(readmeQuickstart(text)).toEqual([
      { command: 'helm install a b', comment: 'first' },
      { command: 'npm pack -w x && npm i -g ./y.tgz', comment: '' },
    ]);
  });

  it('says what is missing: no marker, no block, a line not there or there twice', () => {
    expect(() => readmeQuickstart('```sh\nx\n```')).toThrow('no <!-- kubernetes-quickstart');
    expect(() => readmeQuickstart('<!-- kubernetes-quickstart -->\nno block')).toThrow('no ```sh block');
    const lines = readmeQuickstart('<!-- kubernetes-quickstart -->\n```sh\norrery a\norrery a\n```');
    expect(() => quickstartLine(lines, 'orrery a')).toThrow('found 2');
    expect(() => quickstartLine(lines, 'helm')).toThrow('found 0');
  });
});

describe("the README's Kubernetes section (what helm-install-defaults.kube.test.ts runs)", () => {
  const lines = readmeQuickstart(README);

  it('is at most 10 commands, in the order a new user runs them', () => {
    expect(lines.length).toBeLessThanOrEqual(10);
    const order = ['helm install', 'npm pack', 'orrery deploy', 'orrery invoke', 'orrery describe'].map((p) => lines.indexOf(quickstartLine(lines, p)));
    expect(order).toEqual([...order].sort((a, b) => a - b));
  });

  it('installs with the chart defaults into orrery-system, and says how to turn traces on', () => {
    const install = quickstartLine(lines, 'helm install');
    expect(install.command).toBe('helm install orrery charts/orrery -n orrery-system --create-namespace --wait');
    expect(install.comment).toMatch(/--set tracing\.otlpEndpoint=/);
  });

  it('installs the CLI tarball of the current version and deploys a handler file that exists', () => {
    expect(quickstartLine(lines, 'npm pack').command).toBe(`npm pack -w @orrery/cli && npm i -g ./orrery-cli-${CLI_VERSION}.tgz`);
    const deploy = quickstartLine(lines, 'orrery deploy').command;
    const code = /--code (\S+)/.exec(deploy)?.[1];
    expect(code).toBeDefined();
    expect(readFileSync(join(repoRoot, code!), 'utf8')).toMatch(/export default/);
    for (const p of ['orrery deploy', 'orrery invoke', 'orrery describe']) expect(quickstartLine(lines, p).command).toContain('--kubeconfig ~/.kube/config');
  });
});
