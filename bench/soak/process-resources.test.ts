import { describe, expect, it } from 'vitest';
import { processResources, vmRssBytes } from './process-resources.ts';

describe('vmRssBytes', () => {
  it('reads VmRSS in bytes', () => {
    expect(vmRssBytes('Name:\tnode\nVmPeak:\t  999 kB\nVmRSS:\t  204800 kB\nRssAnon:\t 1 kB\n')).toBe(204800 * 1024);
  });

  it('is undefined without a VmRSS line (a zombie has none)', () => {
    expect(vmRssBytes('Name:\tnode\nState:\tZ (zombie)\n')).toBeUndefined();
  });
});

describe('processResources', () => {
  it('reads this process, and nothing for a pid that does not exist', () => {
    const me = processResources(process.pid);
    expect(me?.rssBytes).toBeGreaterThan(1024 * 1024);
    expect(me?.fds).toBeGreaterThan(2);
    expect(processResources(2 ** 22 + 7)).toBeUndefined();
  });
});
