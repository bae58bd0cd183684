/** The runtime's pure parts, tested in Python (unittest, standard library only: Debian's python3 has no pytest). */
import { describe, expect, it } from 'vitest';
import { runPythonUnitTests } from './testing/python-runtime-process.ts';

describe('orrery_runtime unit tests (python3 -m unittest)', () => {
  it('pass', { timeout: 60_000 }, async () => {
    const r = await runPythonUnitTests();
    expect(r.out).toMatch(/Ran \d+ tests/);
    // Every module's tests ran (a module that fails to import shows as one error, not as missing tests).
    for (const module of ['test_config', 'test_breaker', 'test_concurrency_meter', 'test_specialize_gate', 'test_specialize_request', 'test_credential_files', 'test_structured_log', 'test_http_messages', 'test_load_function', 'test_registrar', 'test_handshake_refusal', 'test_websocket_frames', 'test_websocket_session', 'test_replayable_invocation']) {
      expect(r.out).toContain(`orrery_runtime.${module}.`);
    }
    expect(r.code, r.out).toBe(0);
  });
});
