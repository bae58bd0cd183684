/** The Node runtime (orrery-runtime) as the runtime contract suite drives it. */
import { PROBE_FIXTURE, RUNTIME_BIN, startRuntime } from './runtime-process.ts';
import type { RuntimeUnderTest } from './runtime-under-test.ts';

export const nodeRuntime: RuntimeUnderTest = {
  name: 'orrery-runtime',
  start: (args, env) => startRuntime(args, env),
  launch: { command: process.execPath, args: [RUNTIME_BIN] },
  probe: PROBE_FIXTURE,
  // The probe's /wait-file ignores the request's abort signal.
  holdPath: '/wait-file',
  partialReadPath: '/read-some',
  missingEntrypoint: /entrypoint_not_found.*no export named "nope"/,
  sources: {
    pool: `export const handler = async (req, ctx) => Response.json({
  revision: ctx.revision, stateful: ctx.state !== undefined, tokenPath: process.env.ORRERY_STATE_TOKEN_PATH, mode: process.env.MODE,
  leaked: ['ORRERY_SPECIALIZE_VERIFIER', 'ORRERY_REGISTRY_CREDENTIAL', 'ORRERY_STATE_TOKEN'].filter((k) => k in process.env),
});`,
    logging: `export default async (req, ctx) => {
  ctx.log.info('handling', { path: new URL(req.url).pathname });
  if (req.url.endsWith('/fail')) await ctx.state.get('k');
  return new Response('ok');
};`,
  },
};
