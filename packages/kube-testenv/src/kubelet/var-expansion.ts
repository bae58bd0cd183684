/**
 * `$(VAR)` expansion exactly as Kubernetes does it in env values, command and args
 * (k8s.io/kubernetes third_party/forked/golang/expansion): `$(NAME)` is replaced when NAME is
 * known, kept literally when it is not; `$$` is an escaped `$`; an unclosed `$(` and a `$`
 * before any other character stay as written.
 */
export type VarLookup = (name: string) => string | undefined;

/** Looks NAME up in each map in turn (the first that has it wins). */
export function lookupIn(...maps: ReadonlyArray<ReadonlyMap<string, string>>): VarLookup {
  return (name) => {
    for (const m of maps) {
      const v = m.get(name);
      if (v !== undefined) return v;
    }
    return undefined;
  };
}

export function expandVars(input: string, lookup: VarLookup): string {
  let out = '';
  let checkpoint = 0;
  for (let cursor = 0; cursor < input.length; cursor++) {
    if (input[cursor] !== '$' || cursor + 1 >= input.length) continue;
    out += input.slice(checkpoint, cursor);
    const rest = input.slice(cursor + 1);
    let advance = 1;
    if (rest[0] === '$') {
      out += '$';
    } else if (rest[0] === '(') {
      const close = rest.indexOf(')', 1);
      if (close === -1) {
        out += '$(';
      } else {
        const name = rest.slice(1, close);
        out += lookup(name) ?? `$(${name})`;
        advance = close + 1;
      }
    } else {
      out += `$${rest[0]}`;
    }
    cursor += advance;
    checkpoint = cursor + 1;
  }
  return out + input.slice(checkpoint);
}
