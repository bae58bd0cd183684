import { describe, expect, it } from 'vitest';
import { formatTraffic, parseTraffic } from './traffic-notation.ts';

describe('traffic notation', () => {
  it('reads revision=percent lists, commas or separate arguments, % optional', () => {
    expect(parseTraffic(['counter-00001=50,counter-00002=50%'])).toEqual({
      targets: [
        { revisionName: 'counter-00001', percent: 50 },
        { revisionName: 'counter-00002', percent: 50 },
      ],
    });
    expect(parseTraffic(['a-00001=90', 'canary:a-00002=10'])).toEqual({
      targets: [
        { revisionName: 'a-00001', percent: 90 },
        { revisionName: 'a-00002', percent: 10, tag: 'canary' },
      ],
    });
  });
  it('latest means the latest ready revision', () => {
    expect(parseTraffic(['latest=100'])).toEqual({ targets: [{ latestRevision: true, percent: 100 }] });
    expect(parseTraffic(['next:latest=0'])).toEqual({ targets: [{ latestRevision: true, percent: 0, tag: 'next' }] });
  });
  it('names the entry it cannot read', () => {
    expect(parseTraffic(['a=50', 'b:50'])).toEqual({ error: '"b:50" is not [tag:]revision=percent (e.g. canary:counter-00002=10)' });
    expect(parseTraffic(['A-1=100'])).toMatchObject({ error: expect.stringContaining('"A-1=100"') });
    expect(parseTraffic([])).toMatchObject({ error: expect.stringContaining('no traffic targets') });
  });
  it('prints what it reads (orrery get shows the same)', () => {
    const text = 'canary:a-00002=10%,a-00001=90%,latest=0%';
    const parsed = parseTraffic([text]);
    expect('targets' in parsed && formatTraffic(parsed.targets)).toBe(text);
    expect(formatTraffic([])).toBe('latest=100%');
  });
});
