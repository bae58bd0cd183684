'use client';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { createTRPCClient, httpBatchLink } from '@trpc/client';
import type { AppRouter } from '@orrery/api';
import { useState, type ReactNode } from 'react';
import { TRPCProvider } from '../lib/trpc.ts';
import { CONSOLE_MAX_BATCH_SIZE } from '../lib/batch-size.ts';
import { LIVE_INTERVAL_MS } from '../lib/live.ts';

export function Providers({ children }: { children: ReactNode }) {
  const [queryClient] = useState(
    () =>
      new QueryClient({
        defaultOptions: {
          // Lists are the live view: refetched every LIVE_INTERVAL_MS while the page is open.
          queries: { refetchInterval: LIVE_INTERVAL_MS, staleTime: 1_000, retry: 1 },
        },
      }),
  );
  const [trpcClient] = useState(() => createTRPCClient<AppRouter>({ links: [httpBatchLink({ url: '/trpc', maxItems: CONSOLE_MAX_BATCH_SIZE })] }));
  return (
    <QueryClientProvider client={queryClient}>
      <TRPCProvider trpcClient={trpcClient} queryClient={queryClient}>
        {children}
      </TRPCProvider>
    </QueryClientProvider>
  );
}
