/** The text `orrery up` prints once everything is started: where things are and how to try them. */
import type { PlatformInfo } from './platform-file.ts';

export function renderSummary(info: PlatformInfo, adminTokenFile: string, examples: boolean): string {
  const router = info.routerUrls[0] ?? '<no router running>';
  const lines = ['', 'Orrery is up.', ''];
  for (const c of info.components) {
    const where = c.url ? ` ${c.url}` : '';
    lines.push(`  ${c.state === 'ready' ? 'Ready   ' : 'Degraded'}  ${c.name.padEnd(10)}${where}${c.state === 'degraded' && c.reason ? `  — ${c.reason}` : ''}`);
  }
  lines.push(
    '',
    `  router        ${info.routerUrls.join(', ') || 'none'}`,
    `  store/operator ${info.storeUrl}   (GET ${info.storeUrl}/v1/store/Function)`,
    `  console       ${info.consoleUrl ?? 'not running'}   (log in with the admin token)`,
    `  admin API     ${info.storeUrl}/trpc/   (console, CLI and automation; docs/api.md)`,
    `  admin token   in ${adminTokenFile}`,
    `  data          ${info.dataDir}   (component logs in ${info.dataDir}/logs/_platform; worker logs: npx orrery logs <function>)`,
  );
  if (examples) {
    lines.push(
      '',
      'Try the examples:',
      `  curl -X POST ${router}/default/counter/            # counter: +1 on every call`,
      `  curl ${router}/default/counter/                    # read it`,
      `  curl -X POST -H 'X-Session-Id: alice' -d '{"item":"apple","qty":2}' ${router}/default/cart/   # cart: sticky per session`,
      `  curl -H 'X-Session-Id: alice' ${router}/default/cart/`,
      `  curl ${router}/default/canary/                     # canary: 90 % v1, 10 % v2`,
      `  curl -H 'Orrery-Tag: canary' ${router}/default/canary/   # always v2`,
    );
  }
  lines.push('', 'Status: npx orrery status   Stop: Ctrl-C or npx orrery down', '');
  return lines.join('\n');
}
