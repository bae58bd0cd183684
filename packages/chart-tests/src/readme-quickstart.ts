/**
 * The README's Kubernetes quickstart as lines to run: the `sh` block after the
 * `<!-- kubernetes-quickstart … -->` marker, each line split into the command and its trailing
 * comment. helm-install-defaults.kube.test.ts runs these lines with bash, so the README cannot
 * drift from what is tested.
 */
export const QUICKSTART_MARKER = '<!-- kubernetes-quickstart';

export interface QuickstartLine {
  command: string;
  /** The trailing `# …` text, '' when none. */
  comment: string;
}

export function readmeQuickstart(readme: string): QuickstartLine[] {
  const at = readme.indexOf(QUICKSTART_MARKER);
  if (at < 0) throw new Error(`README has no ${QUICKSTART_MARKER} … --> marker before its Kubernetes commands`);
  const open = readme.indexOf('```sh\n', at);
  const close = open < 0 ? -1 : readme.indexOf('\n```', open + 6);
  if (open < 0 || close < 0) throw new Error('README: no ```sh block after the kubernetes-quickstart marker');
  return readme
    .slice(open + 6, close)
    .split('\n')
    .map((line) => {
      // A comment starts at " #" (the lines hold no quoted "#").
      const hash = line.search(/\s#/);
      return hash < 0 ? { command: line.trim(), comment: '' } : { command: line.slice(0, hash).trim(), comment: line.slice(hash).replace(/^\s*#\s?/, '').trim() };
    })
    .filter((l) => l.command !== '');
}

/** The one line that starts with `prefix` (throws when there is none or several). */
export function quickstartLine(lines: readonly QuickstartLine[], prefix: string): QuickstartLine {
  const found = lines.filter((l) => l.command.startsWith(prefix));
  if (found.length !== 1) throw new Error(`README quickstart: expected one line starting with "${prefix}", found ${found.length}`);
  return found[0]!;
}
