/**
 * The build log (status.build.log, the console's build panel) shows npm's and pip's output, which
 * names the builder's own folders: the package being built (`<out>.building-<random>`) and the
 * throwaway HOME (`/tmp/orrery-build-home-<random>`). Those paths change with every build and
 * tell the reader nothing but the machine's layout, so they are replaced by stable names; every
 * other word of the tools' output stays as it was.
 */

/** The builder's own folders as a build sees them, each with the stable name that replaces it. */
export interface BuildPathNames {
  /** The package being built (and where it ends up): `$PACKAGE`. */
  package: readonly string[];
  /** The build's throwaway HOME (npm's cache and logs live in it): `$BUILD_HOME`. */
  home: readonly string[];
}

export const PACKAGE_NAME = '$PACKAGE';
export const BUILD_HOME_NAME = '$BUILD_HOME';

/** Replaces each of the builder's folders in `text` by its stable name; the rest of the text is untouched. */
export function redactBuildPaths(text: string, paths: BuildPathNames): string {
  const names = [...paths.package.map((p) => [p, PACKAGE_NAME] as const), ...paths.home.map((p) => [p, BUILD_HOME_NAME] as const)]
    .map(([p, name]) => [p.replace(/\/+$/, ''), name] as const)
    // `/` alone (or nothing) would swallow every path in the log.
    .filter(([p]) => p.length > 1)
    // Longest first: the work folder `<out>.building-…` starts with `<out>` itself.
    .sort((a, b) => b[0].length - a[0].length);
  let out = text;
  for (const [path, name] of names) out = out.split(path).join(name);
  return out;
}

/** A line longer than this is passed on unfinished (a tool writing without newlines must not grow the buffer forever). */
export const MAX_HELD_LINE_CHARS = 64 * 1024;

/**
 * The tools' output arrives in chunks that may cut a path in two, so whole lines are redacted:
 * `push` passes on every complete line, `flush` the rest once the tool has exited.
 */
export function redactingLog(onLog: (chunk: string) => void, paths: BuildPathNames): { push(chunk: string): void; flush(): void } {
  let pending = '';
  const pass = (text: string) => {
    if (text) onLog(redactBuildPaths(text, paths));
  };
  return {
    push(chunk) {
      pending += chunk;
      const end = pending.length > MAX_HELD_LINE_CHARS ? pending.length : pending.lastIndexOf('\n') + 1;
      pass(pending.slice(0, end));
      pending = pending.slice(end);
    },
    flush() {
      pass(pending);
      pending = '';
    },
  };
}
