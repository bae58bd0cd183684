/**
 * What the runtime contract tests (runtime-contract-suite.ts) need from a runtime: how to start it
 * as a real process, and the few places where its probe fixture or its messages are its own.
 */
import type { RuntimeProcess } from './runtime-process.ts';

export interface RuntimeUnderTest {
  /** The binary's name, shown in the test names: orrery-runtime, orrery-runtime-python. */
  name: string;
  /** Starts it with `--port 0` and `args`, `env` on top of its own, and waits for its `listening …` line. */
  start: (args: string[], env?: Record<string, string>) => Promise<RuntimeProcess>;
  /** The program and the arguments before the flags (for tests that start it from another process). */
  launch: { command: string; args: string[] };
  /**
   * The probe fixture (apps/runtime/fixtures/probe.mjs, apps/runtime-python/fixtures/probe.py):
   * the same paths and answers in both languages.
   */
  probe: string;
  /** A probe path that keeps its slot until the file `?file=` exists, whatever the client or the timeout does. */
  holdPath: string;
  /** A probe path that reads one chunk of the body and answers `read <bytes>` (a runtime whose handlers can leave a body partly unread). */
  partialReadPath?: string;
  /** What the runtime says when it refuses to start on `--entrypoint nope`. */
  missingEntrypoint: RegExp;
  /** Handler source text, in the runtime's language, for inline (`source.inline`, `--source-inline`) functions. */
  sources: {
    /**
     * A pool worker's handler: answers JSON `{revision, stateful, tokenPath, mode, leaked}` — the
     * ctx revision, whether ctx.state is there, ORRERY_STATE_TOKEN_PATH, the MODE env, and which of
     * ORRERY_SPECIALIZE_VERIFIER / ORRERY_REGISTRY_CREDENTIAL / ORRERY_STATE_TOKEN it can see.
     */
    pool: string;
    /** Logs info "handling" with `path` through ctx.log, reads state key "k" on /fail, answers "ok". */
    logging: string;
  };
}
