import { renderToStaticMarkup } from 'react-dom/server';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { createTRPCClient, httpBatchLink } from '@trpc/client';
import { createTRPCOptionsProxy } from '@trpc/tanstack-react-query';
import { describe, expect, it } from 'vitest';
import type { AppRouter } from '@orrery/api';
import { FunctionSchema, RevisionSchema, type Revision } from '@orrery/spec';
import { TRPCProvider } from '../../../../lib/trpc.ts';
import { RevisionsTimeline } from './revisions-timeline.tsx';

const fn = FunctionSchema.parse({
  apiVersion: 'orrery.dev/v1alpha1',
  kind: 'Function',
  metadata: { name: 'pkg', namespace: 'default', generation: 3 },
  spec: { template: { source: { inline: 'x' } }, traffic: [{ revisionName: 'pkg-00001', percent: 100 }] },
  status: { traffic: [{ revisionName: 'pkg-00001', percent: 100 }] },
});
const revision = (n: number): Revision =>
  RevisionSchema.parse({
    apiVersion: 'orrery.dev/v1alpha1',
    kind: 'Revision',
    metadata: { name: `pkg-0000${n}`, namespace: 'default' },
    spec: { function: 'pkg', template: { source: { inline: 'x' } } },
  });
const failed = { reason: 'build_failed' as const, message: 'its package build failed (package cccccccccccc: DependenciesFailed)' };

/** The timeline as an operator sees it (session and permissions already in the cache; nothing is fetched). */
function render(notRunnable: Record<string, typeof failed>): string {
  const queryClient = new QueryClient();
  const trpcClient = createTRPCClient<AppRouter>({ links: [httpBatchLink({ url: 'http://127.0.0.1:9/trpc' })] });
  const trpc = createTRPCOptionsProxy<AppRouter>({ client: trpcClient, queryClient });
  queryClient.setQueryData(trpc.auth.whoami.queryKey(), { who: 'olga', role: 'operator' } as never);
  queryClient.setQueryData(trpc.auth.permissions.queryKey(), { 'functions.rollback': 'operator' });
  return renderToStaticMarkup(
    <QueryClientProvider client={queryClient}>
      <TRPCProvider trpcClient={trpcClient} queryClient={queryClient}>
        <RevisionsTimeline fn={fn} revisions={[revision(1), revision(2), revision(3)]} notRunnable={notRunnable} />
      </TRPCProvider>
    </QueryClientProvider>,
  );
}
const button = (html: string, name: string) => new RegExp(`<button[^>]*data-testid="rollback-${name}"[^>]*>`).exec(html)?.[0] ?? '';

describe('RevisionsTimeline', () => {
  it('disables "Roll back to this" for a revision whose build failed, with the reason as its tooltip, and marks it', () => {
    const html = render({ 'pkg-00003': failed });
    const b3 = button(html, 'pkg-00003');
    expect(b3).toContain('disabled=""');
    expect(b3).toContain(`title="cannot roll back to pkg-00003: ${failed.message}, so it can never serve traffic"`);
    expect(html).toContain('data-testid="revision-not-runnable-pkg-00003"');
    // The others: the pinned one is disabled for its own reason, the one that built is offered.
    expect(button(html, 'pkg-00001')).toContain('title="already receives all traffic"');
    const b2 = button(html, 'pkg-00002');
    expect(b2).not.toContain('disabled');
    expect(b2).toContain('title="send 100 % of traffic to pkg-00002"');
    expect(html).not.toContain('revision-not-runnable-pkg-00002');
  });

  it('offers the rollback once no verdict says the revision cannot run', () => {
    expect(button(render({}), 'pkg-00003')).not.toContain('disabled');
  });
});
