import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../tool-paths.ts';
import { parseDockerfile } from './dockerfile.ts';

describe('parseDockerfile', () => {
  it("reads the final stage's ENTRYPOINT, CMD, ENV, WORKDIR and USER", () => {
    const df = parseDockerfile(`# syntax=docker/dockerfile:1
ARG NODE_IMAGE=node:20
FROM \${NODE_IMAGE} AS deps
WORKDIR /build
ENV BUILD_ONLY=1
RUN npm ci

FROM \${NODE_IMAGE} AS runtime
ENV NODE_ENV=production \\
    NODE_OPTIONS=--enable-source-maps
WORKDIR /app
# a comment inside
USER 1000:1000
ENTRYPOINT ["node", "apps/x/bin/x.mjs"]
CMD ["--host", "0.0.0.0", "--port", "8080"]
`);
    expect(df).toEqual({
      entrypoint: ['node', 'apps/x/bin/x.mjs'],
      cmd: ['--host', '0.0.0.0', '--port', '8080'],
      env: [
        ['NODE_ENV', 'production'],
        ['NODE_OPTIONS', '--enable-source-maps'],
      ],
      workingDir: '/app',
      user: '1000:1000',
    });
  });

  it('inherits from an earlier stage it is built FROM', () => {
    const df = parseDockerfile('FROM alpine AS base\nENV A=1\nWORKDIR /srv\nFROM base\nENV B="two words" C=$A\nCMD run');
    expect(df.env).toEqual([
      ['A', '1'],
      ['B', 'two words'],
      ['C', '1'],
    ]);
    expect(df.workingDir).toBe('/srv');
    expect(df.cmd).toEqual(['/bin/sh', '-c', 'run']);
  });

  it('resolves relative WORKDIRs, the legacy ENV form and shell-form ENTRYPOINT', () => {
    const df = parseDockerfile('FROM x\nWORKDIR /a\nWORKDIR b\nENV LEGACY some value\nENTRYPOINT exec server --flag');
    expect(df.workingDir).toBe('/a/b');
    expect(df.env).toEqual([['LEGACY', 'some value']]);
    expect(df.entrypoint).toEqual(['/bin/sh', '-c', 'exec server --flag']);
  });

  it('drops an inherited CMD when ENTRYPOINT is set, keeps one set in the same stage (BuildKit)', () => {
    expect(parseDockerfile('FROM x AS a\nCMD ["a"]\nFROM a\nENTRYPOINT ["e"]').cmd).toEqual([]);
    expect(parseDockerfile('FROM x\nCMD ["a"]\nENTRYPOINT ["e"]').cmd).toEqual(['a']);
  });

  it("reads every app Dockerfile of this repository", () => {
    const df = parseDockerfile(readFileSync(join(REPO_ROOT, 'apps', 'runtime', 'Dockerfile'), 'utf8'));
    expect(df.entrypoint).toEqual(['node', 'apps/runtime/boot/code-cached-boot.mjs', 'apps/runtime/dist/orrery-runtime.body.cjs', 'apps/runtime/dist/orrery-runtime.body.v8cache']);
    expect(df.workingDir).toBe('/app');
    expect(df.user).toBe('1000:1000');
    expect(df.env).toContainEqual(['NODE_ENV', 'production']);
  });
});
