'use client';
import type { AppRouter } from '@orrery/api';
import { createTRPCContext } from '@trpc/tanstack-react-query';

/** Typed hooks over the admin API; the types come from the API's routers (no copies). */
export const { TRPCProvider, useTRPC, useTRPCClient } = createTRPCContext<AppRouter>();
