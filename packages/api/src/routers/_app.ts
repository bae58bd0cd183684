import { router } from '../trpc.ts';
import { auditRouter } from './audit/_router.ts';
import { authRouter } from './auth/_router.ts';
import { functionsRouter } from './functions/_router.ts';
import { registryRouter } from './registry/_router.ts';
import { stateRouter } from './state/_router.ts';
import { statesyncRouter } from './statesync/_router.ts';
import { stickyRouter } from './sticky/_router.ts';

/** The one admin API: console, CLI and automation all call these procedures. */
export const appRouter = router({
  auth: authRouter,
  functions: functionsRouter,
  state: stateRouter,
  sticky: stickyRouter,
  registry: registryRouter,
  statesync: statesyncRouter,
  audit: auditRouter,
});

export type AppRouter = typeof appRouter;
