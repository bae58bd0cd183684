import { describe, expect, it } from 'vitest';
import { localRuntimeForImage, type LocalRuntimeCommands } from './local-runtime-for-image.ts';
import { pythonRuntimeCommand } from './python-runtime-command.ts';

const node = { command: '/usr/bin/node', args: ['runtime.mjs'] };
const python = { command: '/usr/bin/python3', args: ['-I', '-B', 'orrery-runtime-python.py'] };
const both: LocalRuntimeCommands = { node, python };

describe('localRuntimeForImage', () => {
  it('runs the Node.js runtime without an Environment and for the Node images, whatever the registry, tag or digest', () => {
    for (const image of [undefined, '', 'orrery/runtime-node:latest', 'orrery/runtime', 'orrery/runtime:0.1.0', 'registry.example.com:5000/orrery/runtime-node:1@sha256:abc']) {
      expect(localRuntimeForImage(image, both), String(image)).toEqual({ ok: true, runtime: 'node', command: node });
    }
  });

  it('runs the Python runtime for orrery/runtime-python', () => {
    for (const image of ['orrery/runtime-python:latest', 'orrery/runtime-python', 'localhost/orrery/runtime-python:3.11']) {
      expect(localRuntimeForImage(image, both), image).toEqual({ ok: true, runtime: 'python', command: python });
    }
  });

  it('says why the Python runtime cannot start when python3 is missing', () => {
    expect(localRuntimeForImage('orrery/runtime-python:latest', { node, python: { unavailable: 'python3 is not installed' } })).toEqual({
      ok: false,
      reason: 'RuntimeUnavailable',
      message: 'image "orrery/runtime-python:latest" runs the Python runtime, which cannot start here: python3 is not installed',
    });
  });

  it('refuses any other image with a reason and a message naming what runs locally', () => {
    for (const image of ['python:3.11-slim', 'ghcr.io/acme/runtime-python:1', 'orrery/router', 'acme/orrery/runtime-node', 'fission/node-env']) {
      const r = localRuntimeForImage(image, both);
      expect(r, image).toMatchObject({ ok: false, reason: 'ImageNotRunnableLocally' });
      expect(r.ok ? '' : r.message).toContain(`image "${image}" has no local runtime`);
      expect(r.ok ? '' : r.message).toContain('orrery/runtime-python');
    }
  });
});

describe('pythonRuntimeCommand', () => {
  const script = '/repo/apps/runtime-python/orrery-runtime-python.py';
  const files = (...present: string[]) => (p: string) => [script, ...present].includes(p);

  it("prefers Debian's python3, then PATH, isolated and without bytecode files", () => {
    expect(pythonRuntimeCommand({ PATH: '/opt/py/bin' }, files('/usr/bin/python3', '/opt/py/bin/python3'), script)).toEqual({ command: '/usr/bin/python3', args: ['-I', '-B', script] });
    expect(pythonRuntimeCommand({ PATH: '/a:/opt/py/bin' }, files('/opt/py/bin/python3'), script)).toEqual({ command: '/opt/py/bin/python3', args: ['-I', '-B', script] });
  });

  it('takes ORRERY_PYTHON, and says what is missing', () => {
    expect(pythonRuntimeCommand({ ORRERY_PYTHON: '/opt/python3.12' }, files('/opt/python3.12'), script)).toMatchObject({ command: '/opt/python3.12' });
    expect(pythonRuntimeCommand({ ORRERY_PYTHON: '/nope/python3' }, files(), script)).toEqual({ unavailable: 'ORRERY_PYTHON names /nope/python3, which does not exist' });
    expect(pythonRuntimeCommand({ PATH: '/a' }, files(), script)).toMatchObject({ unavailable: expect.stringContaining('python3 is not installed') });
    expect(pythonRuntimeCommand({}, () => false, script)).toMatchObject({ unavailable: expect.stringContaining('is missing from this checkout') });
  });

  it('finds the real script of this checkout', () => {
    expect(pythonRuntimeCommand({ PATH: process.env.PATH })).toMatchObject({ args: ['-I', '-B', expect.stringMatching(/apps\/runtime-python\/orrery-runtime-python\.py$/)] });
  });
});
