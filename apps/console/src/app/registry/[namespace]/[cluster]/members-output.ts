import type { inferRouterOutputs } from '@trpc/server';
import type { AppRouter } from '@orrery/api';

/** `registry.members` as the API answers it (types from the router, no copies). */
export type MembersOutput = inferRouterOutputs<AppRouter>['registry']['members'];
export type Member = MembersOutput['members'][number];
