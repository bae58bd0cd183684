import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { FunctionSchema, type OrreryFunction } from '@orrery/spec';
import { BuildPanel } from './build-panel.tsx';

const SHA = 'ab'.repeat(32);
const NOW = Date.parse('2026-12-03T10:01:00Z');
const fnWith = (source: unknown, build?: unknown): OrreryFunction =>
  FunctionSchema.parse({
    apiVersion: 'orrery.dev/v1alpha1',
    kind: 'Function',
    metadata: { name: 'pkg', namespace: 'default' },
    spec: { template: { source } },
    ...(build ? { status: { build } } : {}),
  });
const built = {
  sha256: SHA,
  key: 'k'.repeat(64),
  builder: 'node (orrery/builder-node:1)',
  phase: 'Succeeded',
  reason: 'Built',
  message: 'installed 3 packages',
  startedAt: '2026-12-03T10:00:00Z',
  finishedAt: '2026-12-03T10:00:06Z',
  dependencies: 3,
  sizeBytes: 1_572_864,
  log: 'added 3 packages in 1s\n',
};

describe('BuildPanel', () => {
  it('says an inline source has nothing to build, in one line', () => {
    const html = renderToStaticMarkup(<BuildPanel fn={fnWith({ inline: 'export default () => new Response("ok")' })} now={NOW} />);
    expect(html).toMatch(/^<p id="build" class="muted [^"]*" data-testid="build-none">inline source: nothing to build/);
    expect(html).not.toContain('<section');
    expect(html).not.toContain('data-testid="build-phase"');
    expect(renderToStaticMarkup(<BuildPanel fn={fnWith({ url: 'https://example.com/f.mjs' })} now={NOW} />)).toContain('>url source: nothing to build');
  });

  it('says a package the operator has not reported on is waiting', () => {
    const html = renderToStaticMarkup(<BuildPanel fn={fnWith({ package: { sha256: SHA } })} now={NOW} />);
    expect(html).toContain('data-testid="build-waiting"');
    expect(html).not.toContain('build-none');
  });

  it('shows a succeeded build: green badge, reason, times, duration bar, dependencies, size, short sha with copy, log closed', () => {
    const html = renderToStaticMarkup(<BuildPanel fn={fnWith({ package: { sha256: SHA } }, built)} now={NOW} />);
    expect(html).toContain('data-phase="Succeeded"');
    expect(html).toContain('style="color:var(--healthy)" data-testid="build-phase">● Succeeded</span>');
    expect(html).toContain('data-testid="build-reason">Built<');
    expect(html).toContain('installed 3 packages');
    expect(html).toContain(`title="${SHA}" data-testid="build-sha256">${SHA.slice(0, 12)}</code>`);
    expect(html).toContain('data-testid="build-sha256-copy"');
    // 6 s of a 10 s scale: 96 of 160 px, in the phase's colour.
    expect(html).toContain('aria-label="Build took 6.0 s; the whole bar is 10.0 s"');
    expect(html).toMatch(/<\/svg>took 6.0 s<\/span>/);
    expect(html).toContain('width="96" height="10" rx="3" fill="var(--healthy)"');
    expect(html).toContain('data-testid="build-dependencies">3<');
    expect(html).toContain('title="1572864 bytes">1.5 MiB<');
    expect(html).toMatch(/<details><summary>Log/);
    expect(html).not.toContain('buildFailed');
    expect(html).not.toContain('build-stale');
  });

  it('makes a failed build obvious: red badge and edge, the message as an error, the log open', () => {
    const failed = { ...built, phase: 'Failed', reason: 'DependenciesFailed', message: 'npm exited 1', finishedAt: '2026-12-03T10:00:45Z', dependencies: undefined, sizeBytes: undefined, log: 'npm ERR! 404 left-padd\n' };
    const html = renderToStaticMarkup(<BuildPanel fn={fnWith({ package: { sha256: SHA } }, failed)} now={NOW} />);
    expect(html).toMatch(/class="card [^"]*panel[^"]* [^"]*buildFailed/);
    expect(html).toContain('style="color:var(--degraded)" data-testid="build-phase">✕ Failed</span>');
    expect(html).toContain('class="error" data-testid="build-message">npm exited 1<');
    expect(html).toMatch(/<details open=""><summary>Log/);
    expect(html).toContain('data-testid="build-dependencies">—<');
    expect(html).toContain('data-testid="build-size">—<');
    expect(html).toContain('Build took 45.0 s; the whole bar is 1 min 00 s');
  });

  it('prints the log as text, never as HTML', () => {
    const log = '<img src=x onerror=alert(1)> & </pre><script>alert(2)</script>';
    const html = renderToStaticMarkup(<BuildPanel fn={fnWith({ package: { sha256: SHA } }, { ...built, log })} now={NOW} />);
    expect(html).not.toContain('<img');
    expect(html).not.toContain('<script>');
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt; &amp; &lt;/pre&gt;&lt;script&gt;alert(2)&lt;/script&gt;');
    expect(html).toMatch(/<pre class="[^"]*buildLog[^"]*" tabindex="0" aria-label="Build log tail" data-testid="build-log">/);
  });

  it('measures a running build up to now and says so; a pending one has not started', () => {
    const running = { ...built, phase: 'Building', reason: 'Building', message: undefined, finishedAt: undefined, log: undefined };
    const html = renderToStaticMarkup(<BuildPanel fn={fnWith({ package: { sha256: SHA } }, running)} now={NOW} />);
    expect(html).toContain('◐ Building');
    expect(html).toContain('Build running for 1 min 00 s; the whole bar is 1 min 00 s');
    expect(html).toContain('no output recorded');
    const pending = { sha256: SHA, key: 'k', builder: 'node', phase: 'Pending', reason: 'ArchiveMissing', message: 'no archive yet' };
    const p = renderToStaticMarkup(<BuildPanel fn={fnWith({ package: { sha256: SHA } }, pending)} now={NOW} />);
    expect(p).toContain('○ Pending');
    expect(p).toContain('not started');
  });

  it('warns when the status is about an earlier archive than the template names', () => {
    const newer = 'cd'.repeat(32);
    const html = renderToStaticMarkup(<BuildPanel fn={fnWith({ package: { sha256: newer } }, built)} now={NOW} />);
    expect(html).toContain('data-testid="build-stale"');
    expect(html).toContain(`<code>${newer.slice(0, 12)}</code>`);
  });
});
