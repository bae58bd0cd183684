import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

// A plain ES module of the repository's scripts (the bins import it), without type declarations.
const { bundleStaleness, freshBundle } = (await import(pathToFileURL(join(import.meta.dirname, '..', 'app-launch.mjs')).href)) as {
  bundleStaleness: (app: string, root?: string) => string | undefined;
  freshBundle: (app: string, root?: string) => string | undefined;
};

// A bin runs the compiled bundle only while it is fresh; otherwise the source (never stale code).
describe('bundleStaleness', () => {
  let root = '';
  const builtAt = Date.parse('2026-12-01T10:00:00Z');
  const file = (rel: string, mtime: number) => {
    mkdirSync(join(root, rel, '..'), { recursive: true });
    writeFileSync(join(root, rel), 'x');
    utimesSync(join(root, rel), mtime / 1000, mtime / 1000);
  };
  const manifest = (m: unknown) => writeFileSync(join(root, 'apps/demo/dist/orrery-demo.inputs.json'), JSON.stringify(m));

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'app-launch-'));
    file('apps/demo/src/main.ts', builtAt - 60_000);
    file('packages/lib/src/index.ts', builtAt - 60_000);
    file('apps/demo/dist/orrery-demo.mjs', builtAt + 5_000);
    manifest({ startedAt: builtAt, inputs: ['apps/demo/src/main.ts', 'packages/lib/src/index.ts'] });
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('is fresh when every input is older than the build', () => {
    expect(bundleStaleness('demo', root)).toBeUndefined();
  });

  it('is stale when an input changed after the build started (even during it)', () => {
    file('packages/lib/src/index.ts', builtAt + 1);
    expect(bundleStaleness('demo', root)).toBe('packages/lib/src/index.ts changed after the build');
  });

  it('is stale when an input is gone', () => {
    rmSync(join(root, 'apps/demo/src/main.ts'));
    expect(bundleStaleness('demo', root)).toBe('apps/demo/src/main.ts is gone');
  });

  it('is not built without the bundle or its input list', () => {
    rmSync(join(root, 'apps/demo/dist/orrery-demo.mjs'));
    expect(bundleStaleness('demo', root)).toMatch(/^not built/);
    file('apps/demo/dist/orrery-demo.mjs', builtAt + 5_000);
    rmSync(join(root, 'apps/demo/dist/orrery-demo.inputs.json'));
    expect(bundleStaleness('demo', root)).toMatch(/^not built/);
  });

  it('freshBundle names the fresh bundle, and nothing when stale or when ORRERY_APP_SOURCE=tsx', () => {
    expect(freshBundle('demo', root)).toBe(join(root, 'apps/demo/dist/orrery-demo.mjs'));
    const saved = process.env.ORRERY_APP_SOURCE;
    process.env.ORRERY_APP_SOURCE = 'tsx';
    try {
      expect(freshBundle('demo', root)).toBeUndefined();
    } finally {
      if (saved === undefined) delete process.env.ORRERY_APP_SOURCE;
      else process.env.ORRERY_APP_SOURCE = saved;
    }
    file('apps/demo/src/main.ts', builtAt + 1);
    expect(freshBundle('demo', root)).toBeUndefined();
  });

  it('refuses an input list it cannot read', () => {
    manifest({ inputs: 'everything' });
    expect(bundleStaleness('demo', root)).toBe('its input list is unreadable');
  });
});
