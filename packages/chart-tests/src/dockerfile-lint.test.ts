import { describe, expect, it } from 'vitest';
import { lintDockerfile, parseDockerfile } from './dockerfile-lint.ts';

const GOOD = `# syntax=docker/dockerfile:1
ARG NODE_IMAGE=node:20.20-bookworm-slim
FROM \${NODE_IMAGE} AS deps
WORKDIR /app
COPY . .
RUN npm ci --omit=dev \\
 && npm cache clean --force
FROM \${NODE_IMAGE}
COPY --from=deps --chown=1000:1000 /app/node_modules ./node_modules
USER 1000:1000
HEALTHCHECK CMD ["node", "-e", "1"]
ENTRYPOINT ["node", "main.mjs"]
`;

describe('parseDockerfile', () => {
  it('joins continuations and keeps the first line number', () => {
    const { instructions, comments } = parseDockerfile(GOOD);
    expect(instructions.find((i) => i.keyword === 'RUN')).toEqual({ keyword: 'RUN', args: 'npm ci --omit=dev  && npm cache clean --force', line: 6 });
    expect(comments).toEqual(['syntax=docker/dockerfile:1']);
  });
});

describe('lintDockerfile', () => {
  it('accepts a multi-stage, pinned, non-root Dockerfile', () => {
    expect(lintDockerfile(GOOD)).toEqual([]);
  });

  it.each([
    ['RUN echo\nFROM node:20-slim\nUSER 1000\nHEALTHCHECK NONE', 'the first instruction (after global ARGs) must be FROM'],
    ['FROM node\nUSER 1000\nHEALTHCHECK NONE', 'line 1: base image node has no tag (pin a version)'],
    ['FROM node:latest\nUSER 1000\nHEALTHCHECK NONE', 'line 1: base image node:latest uses the latest tag (pin a version)'],
    ['ARG IMG\nFROM ${IMG}\nUSER 1000\nHEALTHCHECK NONE', 'line 2: FROM without an image (an ARG without a default?)'],
    ['FROM node:20-slim\nHEALTHCHECK NONE', 'the final stage sets no USER (it would run as root)'],
    ['FROM node:20-slim AS a\nUSER 1000\nFROM node:20-slim\nHEALTHCHECK NONE', 'the final stage sets no USER (it would run as root)'],
    ['FROM node:20-slim\nUSER 1000\nUSER root\nHEALTHCHECK NONE', 'line 3: USER root is root'],
    ['FROM node:20-slim\nUSER 0:0\nHEALTHCHECK NONE', 'line 2: USER 0:0 is root'],
    ['FROM node:20-slim\nCOPY a b\nUSER 1000\nHEALTHCHECK NONE', 'line 2: COPY in the final stage without --chown'],
    ['FROM node:20-slim\nADD https://example.com/x.tgz /x\nUSER 1000\nHEALTHCHECK NONE', 'line 2: ADD of a URL: download in a RUN step with a checksum, or COPY a vendored file'],
    ['FROM node:20-slim\nUSER 1000', 'no HEALTHCHECK and no "# probe: …" comment naming the Kubernetes probe'],
    ['FROM node:20-slim\nUSER 1000\nHEALTHCHECK NONE\nFROBNICATE x', 'line 4: unknown instruction FROBNICATE'],
  ])('reports a problem in %j', (text, problem) => {
    expect(lintDockerfile(text)).toContain(problem);
  });

  it('accepts a documented probe instead of HEALTHCHECK and a digest-pinned image', () => {
    expect(lintDockerfile('# probe: httpGet /healthz (Kubernetes)\nFROM node@sha256:abc\nUSER node')).toEqual([]);
  });
});
