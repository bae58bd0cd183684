import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { repoRoot } from './chart-files.ts';

// scripts/production-closure.mjs: what an image's node_modules holds for the packages it carries.
type Closure = (root: string, names: string[]) => string[];
const { productionClosure } = (await import(pathToFileURL(join(repoRoot, 'scripts', 'production-closure.mjs')).href)) as { productionClosure: Closure };

const dir = mkdtempSync(join(tmpdir(), 'orrery-closure-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const pkg = (path: string, json: Record<string, unknown>) => {
  mkdirSync(join(dir, path), { recursive: true });
  writeFileSync(join(dir, path, 'package.json'), JSON.stringify(json));
};

describe('productionClosure', () => {
  it('follows dependencies the way Node resolves them, with installed optional ones, and nothing else', () => {
    pkg('node_modules/a', { dependencies: { b: '2', c: '1' }, optionalDependencies: { 'other-platform': '1', native: '1' }, devDependencies: { dev: '1' } });
    pkg('node_modules/a/node_modules/b', { version: '2', dependencies: { c: '1' } });
    pkg('node_modules/b', { version: '1' });
    pkg('node_modules/c', { peerDependencies: { p: '1', q: '1' }, peerDependenciesMeta: { q: { optional: true } } });
    pkg('node_modules/p', {});
    pkg('node_modules/@scope/native', {});
    pkg('node_modules/native', { dependencies: { '@scope/native': '1' } });
    pkg('node_modules/dev', {});
    pkg('node_modules/unrelated', {});
    expect(productionClosure(dir, ['a'])).toEqual([
      'node_modules/@scope/native',
      'node_modules/a',
      'node_modules/a/node_modules/b',
      'node_modules/c',
      'node_modules/native',
      'node_modules/p',
    ]);
  });

  it('names a missing package and the folder that needed it', () => {
    pkg('node_modules/needs-ghost', { dependencies: { ghost: '1' } });
    expect(() => productionClosure(dir, ['needs-ghost'])).toThrow('ghost is not installed (needed from node_modules/needs-ghost); run npm ci');
    expect(() => productionClosure(dir, ['nowhere'])).toThrow('nowhere is not installed (needed from .); run npm ci');
  });

  it("holds etcd3's gRPC stack in this repository's node_modules", () => {
    const closure = productionClosure(repoRoot, ['etcd3']);
    expect(closure).toEqual(expect.arrayContaining(['node_modules/etcd3', 'node_modules/@grpc/grpc-js', 'node_modules/@grpc/proto-loader', 'node_modules/protobufjs']));
    expect(closure).not.toContain('node_modules/tsx');
  });
});
