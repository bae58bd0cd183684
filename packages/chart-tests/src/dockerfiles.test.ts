import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from './chart-files.ts';
import { lintDockerfile, parseDockerfile } from './dockerfile-lint.ts';

const APPS = ['operator', 'router', 'statesvc', 'registry', 'runtime', 'console'];
const read = (app: string) => readFileSync(join(repoRoot, 'apps', app, 'Dockerfile'), 'utf8');

describe('app Dockerfiles', () => {
  it.each(APPS)('apps/%s/Dockerfile passes the lint rules', (app) => {
    expect(lintDockerfile(read(app))).toEqual([]);
  });

  it.each(APPS)('apps/%s/Dockerfile is multi-stage, installs only its workspace and starts its bin', (app) => {
    const { instructions } = parseDockerfile(read(app));
    expect(instructions.filter((i) => i.keyword === 'FROM').length).toBeGreaterThanOrEqual(2);
    expect(instructions.some((i) => i.keyword === 'RUN' && i.args.includes(`npm ci --omit=dev`) && i.args.includes(`-w @orrery/${app}`))).toBe(true);
    const entrypoint = instructions.findLast((i) => i.keyword === 'ENTRYPOINT');
    expect(entrypoint?.args).toContain(`apps/${app}/bin/orrery-${app}.mjs`);
    expect(existsSync(join(repoRoot, 'apps', app, 'bin', `orrery-${app}.mjs`))).toBe(true);
  });

  it('the base image is Node 20 slim', () => {
    for (const app of APPS) expect(read(app), app).toMatch(/^ARG NODE_IMAGE=node:20[.\d]*-[a-z]+-slim$/m);
  });

  it('the shared .dockerignore keeps node_modules and git out of the build context', () => {
    const ignore = readFileSync(join(repoRoot, '.dockerignore'), 'utf8').split('\n');
    expect(ignore).toEqual(expect.arrayContaining(['**/node_modules', '.git']));
  });
});
