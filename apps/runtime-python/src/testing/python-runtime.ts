/** The Python runtime (orrery-runtime-python) as the runtime contract suite (apps/runtime/src/testing) drives it. */
import type { RuntimeUnderTest } from '../../../runtime/src/testing/runtime-contract-suite.ts';
import { PYTHON, PYTHON_ARGS, PYTHON_PROBE, startPythonRuntime } from './python-runtime-process.ts';

export const pythonRuntime: RuntimeUnderTest = {
  name: 'orrery-runtime-python',
  start: (args, env) => startPythonRuntime(args, env),
  launch: { command: PYTHON, args: PYTHON_ARGS },
  probe: PYTHON_PROBE,
  // The probe's /wait-file lets go when request.cancelled is set; /hold-file does not.
  holdPath: '/hold-file',
  missingEntrypoint: /cannot load function team-a\/probe \(probe-00001\): entrypoint_not_found: .*has no "nope"/,
  sources: {
    pool: `import os

def handler(request, ctx):
    return {"revision": ctx.revision, "stateful": ctx.state is not None, "tokenPath": os.environ.get("ORRERY_STATE_TOKEN_PATH"), "mode": os.environ.get("MODE"),
            "leaked": [k for k in ("ORRERY_SPECIALIZE_VERIFIER", "ORRERY_REGISTRY_CREDENTIAL", "ORRERY_STATE_TOKEN") if k in os.environ]}
`,
    logging: `def handler(request, ctx):
    ctx.log.info("handling", path=request.path)
    if request.path == "/fail":
        ctx.state.get("k")
    return "ok"
`,
  },
};
