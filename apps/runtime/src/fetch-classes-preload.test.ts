import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const MODULE = fileURLToPath(new URL('./fetch-classes-preload.ts', import.meta.url));
const UNDICI = 'NativeModule internal/deps/undici/undici';

/** Which of Node's fetch modules a fresh process has loaded before and after `preloadFetchClasses`. */
function loadedInFreshProcess(): { before: boolean; after: boolean } {
  const script = `
    const loaded = () => process.moduleLoadList.includes(${JSON.stringify(UNDICI)});
    const before = loaded();
    const { preloadFetchClasses } = await import(${JSON.stringify(MODULE)});
    await preloadFetchClasses();
    console.log(JSON.stringify({ before, after: loaded() }));`;
  const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8', timeout: 20_000 });
  return JSON.parse(out.trim().split('\n').at(-1)!) as { before: boolean; after: boolean };
}

describe('preloadFetchClasses', () => {
  it('loads Node’s fetch implementation that a fresh process does not have yet', () => {
    // Node 20 loads undici lazily; if a future Node preloads it, the `before` check says the preload is moot.
    expect(loadedInFreshProcess()).toEqual({ before: false, after: true });
  });

  it('resolves after building and reading a request and a response body', async () => {
    const { preloadFetchClasses } = await import('./fetch-classes-preload.ts');
    await expect(preloadFetchClasses()).resolves.toBeUndefined();
  });
});
