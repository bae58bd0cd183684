'use client';
import { useQuery } from '@tanstack/react-query';
import { useTRPC } from './trpc.ts';

const RANK: Record<string, number> = { public: 0, viewer: 1, operator: 2, admin: 3 };

/** The caller and the role each procedure needs (both from the API; the API still enforces). */
export function useSession() {
  const trpc = useTRPC();
  const whoami = useQuery(trpc.auth.whoami.queryOptions(undefined, { refetchInterval: 10_000 }));
  const permissions = useQuery(trpc.auth.permissions.queryOptions(undefined, { refetchInterval: false, staleTime: Infinity }));
  return { whoami: whoami.data, loading: whoami.isLoading, permissions: permissions.data };
}

/** Whether the current role may call `procedure`, and why not (for a disabled control's title). */
export function useCan(procedure: string): { allowed: boolean; reason?: string } {
  const { whoami, permissions } = useSession();
  const need = permissions?.[procedure];
  if (!whoami?.role || !need) return { allowed: false, reason: 'loading permissions…' };
  if ((RANK[whoami.role] ?? 0) >= (RANK[need] ?? 99)) return { allowed: true };
  return { allowed: false, reason: `your role ${whoami.role} may not do this; it needs ${need}` };
}
