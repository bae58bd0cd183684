import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { repoRoot } from './chart-files.ts';
import { lintDockerfile, parseDockerfile } from './dockerfile-lint.ts';

/** The apps whose image runs a bundle from scripts/build-apps.mjs (the servers and the CLI). */
const SERVER_APPS = ['operator', 'router', 'statesvc', 'registry', 'runtime', 'cli'];
const APPS = [...SERVER_APPS, 'console'];
const read = (app: string) => readFileSync(join(repoRoot, 'apps', app, 'Dockerfile'), 'utf8');

describe('app Dockerfiles', () => {
  it.each(APPS)('apps/%s/Dockerfile passes the lint rules', (app) => {
    expect(lintDockerfile(read(app))).toEqual([]);
  });

  it('apps/console/Dockerfile is multi-stage, installs only its workspace and starts its bin', () => {
    const { instructions } = parseDockerfile(read('console'));
    expect(instructions.filter((i) => i.keyword === 'FROM').length).toBeGreaterThanOrEqual(2);
    expect(instructions.some((i) => i.keyword === 'RUN' && i.args.includes('npm ci --omit=dev') && i.args.includes('-w @orrery/console'))).toBe(true);
    expect(instructions.findLast((i) => i.keyword === 'ENTRYPOINT')?.args).toBe('["node", "apps/console/bin/orrery-console.mjs"]');
    expect(existsSync(join(repoRoot, 'apps', 'console', 'bin', 'orrery-console.mjs'))).toBe(true);
  });

  it.each(SERVER_APPS)('apps/%s/Dockerfile builds the bundle in a build stage and starts it from dist/', (app) => {
    const { instructions } = parseDockerfile(read(app));
    const froms = instructions.map((i, index) => ({ i, index })).filter(({ i }) => i.keyword === 'FROM');
    expect(froms.length).toBe(2);
    const build = instructions.slice(froms[0]!.index, froms[1]!.index);
    expect(build.some((i) => i.keyword === 'RUN' && i.args.includes(`node scripts/build-apps.mjs --image-root /image ${app}`))).toBe(true);
    // The runtime starts its CommonJS body through the code cache build-apps made (scripts/app-bundles.mjs `body`).
    const entrypoint =
      app === 'runtime'
        ? '["node", "apps/runtime/boot/code-cached-boot.mjs", "apps/runtime/dist/orrery-runtime.body.cjs", "apps/runtime/dist/orrery-runtime.body.v8cache"]'
        : `["node", "apps/${app}/dist/orrery-${app}.mjs"]`;
    expect(instructions.findLast((i) => i.keyword === 'ENTRYPOINT')?.args).toBe(entrypoint);
  });

  it.each(SERVER_APPS)('the runtime stage of apps/%s/Dockerfile holds only the image files the build laid out: no tsx, no npm install', (app) => {
    const { instructions } = parseDockerfile(read(app));
    const finalStage = instructions.slice(instructions.findLastIndex((i) => i.keyword === 'FROM'));
    expect(finalStage.filter((i) => i.keyword === 'COPY').map((i) => i.args)).toEqual(['--from=build --chown=1000:1000 /image/ ./']);
    expect(finalStage.filter((i) => i.keyword === 'RUN' || i.keyword === 'ADD')).toEqual([]);
    for (const i of finalStage) expect(i.args, `${i.keyword} ${i.args}`).not.toMatch(/\btsx\b|bin\/orrery-|\.ts\b/);
    expect(finalStage.find((i) => i.keyword === 'ENV')?.args).toContain('NODE_OPTIONS=--enable-source-maps');
  });

  it('only the runtime carries tsx (to load function code written in TypeScript), only the operator PGlite, only the operator, the registry and the CLI etcd3', async () => {
    const { APP_BUNDLES } = (await import(pathToFileURL(join(repoRoot, 'scripts', 'app-bundles.mjs')).href)) as { APP_BUNDLES: Record<string, { carried: string[] }> };
    expect(Object.keys(APP_BUNDLES).sort()).toEqual([...SERVER_APPS].sort());
    const carrying = (pkg: string) => SERVER_APPS.filter((a) => APP_BUNDLES[a]!.carried.includes(pkg));
    expect(carrying('tsx')).toEqual(['runtime']);
    expect(carrying('@electric-sql/pglite')).toEqual(['operator']);
    expect(carrying('etcd3')).toEqual(['operator', 'registry', 'cli']);
  });

  it('the base image is Node 20 slim', () => {
    for (const app of APPS) expect(read(app), app).toMatch(/^ARG NODE_IMAGE=node:20[.\d]*-[a-z]+-slim$/m);
  });

  it('the shared .dockerignore keeps node_modules and git out of the build context', () => {
    const ignore = readFileSync(join(repoRoot, '.dockerignore'), 'utf8').split('\n');
    expect(ignore).toEqual(expect.arrayContaining(['**/node_modules', '.git', '**/dist']));
  });
});
