import { publicQuery } from '../../trpc.ts';
import { procedureRoles } from '../procedure-roles.ts';

/**
 * The minimum role of every procedure, from the procedures' own metadata, so the console
 * disables exactly what the server would refuse (one source of truth; the API still checks).
 */
export const permissions = publicQuery('The minimum role of every procedure (path → viewer | operator | admin | public).').query(() => procedureRoles());
