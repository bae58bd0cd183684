/**
 * What an image built from a Dockerfile runs with, read from the Dockerfile itself: the final
 * stage's ENTRYPOINT, CMD, ENV, WORKDIR and USER (inherited from an earlier stage it is built
 * FROM; a base image contributes nothing: the caller lays its own defaults underneath).
 */
export interface ImageRunConfig {
  entrypoint: string[];
  cmd: string[];
  env: Array<[string, string]>;
  workingDir?: string;
  user?: string;
}

const empty = (): ImageRunConfig => ({ entrypoint: [], cmd: [], env: [] });

/** Joins continuation lines (`\` at the end) and drops comments and blank lines. */
function instructions(text: string): string[] {
  const out: string[] = [];
  let current = '';
  for (const raw of text.split('\n')) {
    const line = raw.replace(/\r$/, '');
    if (!current && /^\s*#/.test(line)) continue;
    if (current && /^\s*#/.test(line)) continue;
    if (/\\\s*$/.test(line)) {
      current += line.replace(/\\\s*$/, ' ');
      continue;
    }
    current += line;
    if (current.trim()) out.push(current.trim());
    current = '';
  }
  if (current.trim()) out.push(current.trim());
  return out;
}

/** Splits on whitespace, honouring double and single quotes and backslash escapes. */
function words(s: string): string[] {
  const out: string[] = [];
  let cur = '';
  let quote: '"' | "'" | undefined;
  let inWord = false;
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (quote) {
      if (c === quote) quote = undefined;
      else if (c === '\\' && quote === '"' && i + 1 < s.length) cur += s[++i];
      else cur += c;
    } else if (c === '"' || c === "'") {
      quote = c;
      inWord = true;
    } else if (c === '\\' && i + 1 < s.length) {
      cur += s[++i];
      inWord = true;
    } else if (/\s/.test(c)) {
      if (inWord) out.push(cur);
      cur = '';
      inWord = false;
    } else {
      cur += c;
      inWord = true;
    }
  }
  if (inWord) out.push(cur);
  return out;
}

/** `["a", "b"]` (exec form) as is; anything else (shell form) runs through `/bin/sh -c`. */
function commandForm(rest: string): string[] {
  if (rest.startsWith('[')) {
    try {
      const parsed: unknown = JSON.parse(rest);
      if (Array.isArray(parsed) && parsed.every((p) => typeof p === 'string')) return parsed;
    } catch {
      /* not JSON: Docker treats it as shell form */
    }
  }
  return ['/bin/sh', '-c', rest];
}

/** `ENV A=1 B="two words"` or the legacy `ENV A one value`. */
function envPairs(rest: string): Array<[string, string]> {
  const parts = words(rest);
  if (parts.length > 0 && !parts[0]!.includes('=')) {
    const m = /^(\S+)\s+(.*)$/.exec(rest);
    return m ? [[m[1]!, m[2]!]] : [[parts[0]!, '']];
  }
  return parts.map((p) => {
    const i = p.indexOf('=');
    return [p.slice(0, i), p.slice(i + 1)];
  });
}

/** Replaces `$VAR` and `${VAR}` from earlier ENV lines (Docker expands them in ENV and WORKDIR). */
function substitute(value: string, env: ReadonlyArray<[string, string]>): string {
  const get = (k: string) => [...env].reverse().find(([n]) => n === k)?.[1] ?? '';
  return value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)/g, (_, a: string | undefined, b: string | undefined) => get((a ?? b)!));
}

export function parseDockerfile(text: string): ImageRunConfig {
  const stages = new Map<string, ImageRunConfig>();
  let stage = empty();
  // A CMD of this stage survives a later ENTRYPOINT; an inherited one does not (BuildKit's rule).
  let cmdSet = false;
  for (const line of instructions(text)) {
    const m = /^(\S+)\s*(.*)$/.exec(line);
    if (!m) continue;
    const op = m[1]!.toUpperCase();
    const rest = m[2]!.trim();
    switch (op) {
      case 'FROM': {
        const w = words(rest).filter((x) => !x.startsWith('--'));
        const from = stages.get(w[0]?.toLowerCase() ?? '');
        stage = from ? structuredClone(from) : empty();
        cmdSet = false;
        if (w[1]?.toUpperCase() === 'AS' && w[2]) stages.set(w[2].toLowerCase(), stage);
        break;
      }
      case 'ENV':
        for (const [k, v] of envPairs(rest)) {
          const value = substitute(v, stage.env);
          stage.env = stage.env.filter(([n]) => n !== k);
          stage.env.push([k, value]);
        }
        break;
      case 'WORKDIR': {
        const dir = substitute(rest, stage.env);
        stage.workingDir = dir.startsWith('/') || !stage.workingDir ? dir : `${stage.workingDir.replace(/\/$/, '')}/${dir}`;
        break;
      }
      case 'USER':
        stage.user = substitute(rest, stage.env);
        break;
      case 'ENTRYPOINT':
        stage.entrypoint = commandForm(rest);
        if (!cmdSet) stage.cmd = [];
        break;
      case 'CMD':
        stage.cmd = commandForm(rest);
        cmdSet = true;
        break;
    }
  }
  return stage;
}
