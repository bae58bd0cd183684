/**
 * A small Dockerfile parser and the lint rules the project requires (hadolint is not available):
 * FROM first (only ARGs before it), pinned base images (no `latest`, no untagged), a non-root USER
 * in the final stage, a HEALTHCHECK (or a `# probe:` comment naming the Kubernetes probe),
 * `COPY --chown` in the final stage, and no `ADD` of URLs.
 */

export interface DockerInstruction {
  keyword: string;
  args: string;
  line: number;
}

export interface ParsedDockerfile {
  instructions: DockerInstruction[];
  comments: string[];
}

const KEYWORDS = new Set([
  'FROM', 'RUN', 'CMD', 'LABEL', 'EXPOSE', 'ENV', 'ADD', 'COPY', 'ENTRYPOINT', 'VOLUME', 'USER',
  'WORKDIR', 'ARG', 'ONBUILD', 'STOPSIGNAL', 'HEALTHCHECK', 'SHELL', 'MAINTAINER',
]);

/** Joins backslash continuations, drops comments and blank lines. */
export function parseDockerfile(text: string): ParsedDockerfile {
  const instructions: DockerInstruction[] = [];
  const comments: string[] = [];
  const lines = text.split('\n');
  let pending: { text: string; line: number } | undefined;
  lines.forEach((raw, index) => {
    const trimmed = raw.trim();
    if (trimmed.startsWith('#')) {
      comments.push(trimmed.slice(1).trim());
      return;
    }
    if (trimmed === '' && !pending) return;
    const continued = trimmed.endsWith('\\');
    const piece = continued ? trimmed.slice(0, -1) : trimmed;
    pending = pending ? { text: `${pending.text} ${piece}`, line: pending.line } : { text: piece, line: index + 1 };
    if (!continued) {
      const m = pending.text.match(/^(\S+)\s*(.*)$/);
      if (m) instructions.push({ keyword: m[1]!.toUpperCase(), args: m[2]!.trim(), line: pending.line });
      pending = undefined;
    }
  });
  if (pending) instructions.push({ keyword: pending.text.split(/\s+/)[0]!.toUpperCase(), args: '', line: pending.line });
  return { instructions, comments };
}

const ROOT_USERS = new Set(['root', '0']);

/** Lint problems, each `line N: message`; [] when the Dockerfile follows every rule. */
export function lintDockerfile(text: string): string[] {
  const { instructions, comments } = parseDockerfile(text);
  const problems: string[] = [];
  const at = (i: DockerInstruction, msg: string) => problems.push(`line ${i.line}: ${msg}`);

  const firstNonArg = instructions.find((i) => i.keyword !== 'ARG');
  if (!firstNonArg || firstNonArg.keyword !== 'FROM') problems.push('the first instruction (after global ARGs) must be FROM');

  const globalArgs = new Map<string, string>();
  for (const i of instructions) {
    if (i.keyword === 'FROM') break;
    const m = i.args.match(/^([A-Za-z_][A-Za-z0-9_]*)(?:=(.*))?$/);
    if (m) globalArgs.set(m[1]!, unquote(m[2] ?? ''));
  }

  const stageNames = new Set<string>();
  let finalStageStart = -1;
  instructions.forEach((i, index) => {
    if (!KEYWORDS.has(i.keyword)) at(i, `unknown instruction ${i.keyword}`);
    if (i.keyword !== 'FROM') return;
    finalStageStart = index;
    const words = i.args.split(/\s+/).filter((w) => !w.startsWith('--'));
    const image = resolveArgs(words[0] ?? '', globalArgs);
    const alias = words[1]?.toUpperCase() === 'AS' ? words[2] : undefined;
    if (!stageNames.has(image)) {
      const problem = baseImageProblem(image);
      if (problem) at(i, problem);
    }
    if (alias) stageNames.add(alias);
  });

  for (const i of instructions) {
    if (i.keyword === 'ADD' && /(^|\s)(https?:\/\/|git@|ftp:\/\/)/.test(i.args)) at(i, 'ADD of a URL: download in a RUN step with a checksum, or COPY a vendored file');
  }

  if (finalStageStart >= 0) {
    const finalStage = instructions.slice(finalStageStart);
    const users = finalStage.filter((i) => i.keyword === 'USER');
    const lastUser = users.at(-1);
    if (!lastUser) problems.push('the final stage sets no USER (it would run as root)');
    else if (ROOT_USERS.has(lastUser.args.split(':')[0]!.trim())) at(lastUser, `USER ${lastUser.args} is root`);
    for (const i of finalStage) {
      if (i.keyword === 'COPY' && !/(^|\s)--chown=\S+/.test(i.args)) at(i, 'COPY in the final stage without --chown');
    }
    const documentedProbe = comments.some((c) => /^probe:/i.test(c));
    if (!finalStage.some((i) => i.keyword === 'HEALTHCHECK') && !documentedProbe) {
      problems.push('no HEALTHCHECK and no "# probe: …" comment naming the Kubernetes probe');
    }
  }
  return problems;
}

function unquote(value: string): string {
  return value.replace(/^"(.*)"$/, '$1').replace(/^'(.*)'$/, '$1');
}

function resolveArgs(value: string, args: Map<string, string>): string {
  return value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)/g, (_m, braced: string | undefined, bare: string | undefined) => args.get((braced ?? bare)!) ?? '');
}

function baseImageProblem(image: string): string | undefined {
  if (image === '') return 'FROM without an image (an ARG without a default?)';
  if (image === 'scratch') return undefined;
  if (image.includes('@sha256:')) return undefined;
  const lastSegment = image.split('/').at(-1)!;
  const tag = lastSegment.includes(':') ? lastSegment.split(':').at(-1)! : undefined;
  if (tag === undefined) return `base image ${image} has no tag (pin a version)`;
  if (tag === 'latest') return `base image ${image} uses the latest tag (pin a version)`;
  return undefined;
}
