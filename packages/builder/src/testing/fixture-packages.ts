import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { zipSync } from 'fflate';
import { writeTar } from '../tar-format.ts';

const bytes = (s: string) => new TextEncoder().encode(s);

async function writeFiles(dir: string, files: Record<string, string | Uint8Array>): Promise<void> {
  for (const [path, content] of Object.entries(files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), content);
  }
}

/** An npm tarball (as `npm pack` makes: everything under package/) of a tiny left-pad, so builds need no registry. */
export function leftPadTarball(): Buffer {
  return gzipSync(
    writeTar([
      { path: 'package/package.json', type: 'file', mode: 0o644, data: bytes('{"name":"left-pad","version":"1.0.0","main":"index.js"}') },
      { path: 'package/index.js', type: 'file', mode: 0o644, data: bytes('module.exports = (s, n, c = " ") => String(s).padStart(n, c);\n') },
    ]),
  );
}

/** A pure-Python wheel (a zip with METADATA, WHEEL and RECORD) of a tiny leftpad_py, so builds need no PyPI. */
export function leftPadWheel(): { name: string; data: Uint8Array } {
  const info = 'leftpad_py-1.0.0.dist-info';
  const files: Record<string, Uint8Array> = {
    'leftpad_py/__init__.py': bytes('def left_pad(s, n, c=" "):\n    return str(s).rjust(n, c)\n'),
    [`${info}/METADATA`]: bytes('Metadata-Version: 2.1\nName: leftpad-py\nVersion: 1.0.0\n'),
    [`${info}/WHEEL`]: bytes('Wheel-Version: 1.0\nGenerator: orrery-test\nRoot-Is-Purelib: true\nTag: py3-none-any\n'),
  };
  files[`${info}/RECORD`] = bytes(`${Object.keys(files).map((f) => `${f},,`).join('\n')}\n${info}/RECORD,,\n`);
  return { name: 'leftpad_py-1.0.0-py3-none-any.whl', data: zipSync(files) };
}

/** A Node package folder whose handler imports left-pad from a vendored file: dependency. */
export async function writeNodePackage(dir: string, overrides: Record<string, string | Uint8Array> = {}): Promise<void> {
  await writeFiles(dir, {
    'vendor/left-pad-1.0.0.tgz': leftPadTarball(),
    'package.json': JSON.stringify({ name: 'padder', version: '1.0.0', type: 'module', main: 'handler.mjs', dependencies: { 'left-pad': 'file:vendor/left-pad-1.0.0.tgz' } }),
    'handler.mjs': "import leftPad from 'left-pad';\nexport default (request) => new Response(leftPad('7', 3, '0'));\n",
    ...overrides,
  });
}

/** A Python package folder whose handler imports leftpad_py from a vendored wheel. */
export async function writePythonPackage(dir: string, overrides: Record<string, string | Uint8Array> = {}): Promise<void> {
  const wheel = leftPadWheel();
  await writeFiles(dir, {
    [`vendor/${wheel.name}`]: wheel.data,
    'requirements.txt': 'leftpad-py==1.0.0\n',
    'main.py': 'from leftpad_py import left_pad\n\ndef handler(request):\n    return left_pad("7", 3, "0")\n',
    ...overrides,
  });
}
