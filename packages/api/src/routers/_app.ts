import { router } from '../trpc.ts';
import { auditRouter } from './audit/_router.ts';
import { authRouter } from './auth/_router.ts';
import { functionsRouter } from './functions/_router.ts';
import { overviewRouter } from './overview/_router.ts';
import { registryRouter } from './registry/_router.ts';
import { resourcesRouter } from './resources/_router.ts';
import { stateRouter } from './state/_router.ts';
import { statesyncRouter } from './statesync/_router.ts';
import { stickyRouter } from './sticky/_router.ts';
import { publishProcedureRoles } from './procedure-roles.ts';

/** The one admin API: console, CLI and automation all call these procedures. */
export const appRouter = router({
  auth: authRouter,
  functions: functionsRouter,
  resources: resourcesRouter,
  state: stateRouter,
  sticky: stickyRouter,
  registry: registryRouter,
  statesync: statesyncRouter,
  audit: auditRouter,
  overview: overviewRouter,
});

publishProcedureRoles(appRouter);

export type AppRouter = typeof appRouter;
