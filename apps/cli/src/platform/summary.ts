/** The text `orrery up` prints once everything is started: where things are and how to try them. */
import type { PlatformInfo } from './platform-file.ts';

export interface SummaryOptions {
  adminTokenFile: string;
  /**
   * The token itself: printed only when `terminal` is true — the summary then goes to the user's
   * own terminal, and logging in to the console is the first thing they do (like Jupyter
   * printing its token). Piped or redirected output (CI logs, log collectors) gets the file.
   */
  adminToken?: string;
  /** stdout is a TTY (`process.stdout.isTTY`). */
  terminal?: boolean;
  /** Where the registry write token for services outside orrery.functions. is (write tokens are on). */
  registryWriteTokenFile?: string;
  /** One curl per example (false with --no-examples). */
  examples: boolean;
  /** Kinds of the applied example manifests: the registry and statesync curls need theirs. */
  exampleKinds?: readonly string[];
}

export function renderSummary(info: PlatformInfo, o: SummaryOptions): string {
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
    `  admin token   ${o.adminToken && o.terminal ? `${o.adminToken}   (stored in ${o.adminTokenFile})` : `in ${o.adminTokenFile}${o.adminToken ? '   (not printed: stdout is not a terminal)' : ''}`}`,
    ...(o.registryWriteTokenFile && info.registryUrl ? [`  registry      writes need a credential: workers get theirs; for your own services use the write token in ${o.registryWriteTokenFile} (Authorization: Bearer)`] : []),
    `  data          ${info.dataDir}   (component logs in ${info.dataDir}/logs/_platform; worker logs: npx orrery logs <function>)`,
  );
  if (o.examples) {
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
    const kinds = o.exampleKinds ?? [];
    if (kinds.includes('RegistryCluster') && info.registryUrl) {
      lines.push(
        `  curl '${info.registryUrl}/api/v1/registry/instances?namespace=default'   # registry: every registered worker (service, endpoints, lease)`,
        `  curl '${info.registryUrl}/api/v1/registry/instances?namespace=default&servicePrefix=orrery.functions.default.counter'   # one function's instances`,
      );
    }
    const admins = info.components.filter((c) => c.name.startsWith('router-') && c.state === 'ready' && c.adminUrl).map((c) => c.adminUrl!);
    if (kinds.includes('StateSync') && admins.length) {
      lines.push(`  curl ${admins[0]}/v1/stats   # statesync: "statesync" shows this router's Redis sync (cycles, entities pulled/pushed)${admins[1] ? `; the other router: ${admins[1]}/v1/stats` : ''}`);
    }
  }
  lines.push('', 'Status: npx orrery status   Stop: Ctrl-C or npx orrery down', '');
  return lines.join('\n');
}
