/**
 * Every `orrery` sub-command, by name. A static list (not a directory scan) so a bundler sees
 * each module: the installable build (dist/orrery.mjs) has no commands/ folder to read. Modules
 * still load lazily: `orrery get` does not load `up`'s supervisor.
 */
import type { ParseArgsConfig } from 'node:util';

export interface Command {
  summary: string;
  /** The flags (parseArgs options), for help and shell completion. */
  options?: NonNullable<ParseArgsConfig['options']>;
  run(argv: string[]): Promise<number>;
}

export const COMMANDS: Readonly<Record<string, () => Promise<Command>>> = {
  apply: () => import('./commands/apply.ts'),
  completion: () => import('./commands/completion.ts'),
  delete: () => import('./commands/delete.ts'),
  deploy: () => import('./commands/deploy.ts'),
  describe: () => import('./commands/describe.ts'),
  down: () => import('./commands/down.ts'),
  get: () => import('./commands/get.ts'),
  invoke: () => import('./commands/invoke.ts'),
  logs: () => import('./commands/logs.ts'),
  passwd: () => import('./commands/passwd.ts'),
  registry: () => import('./commands/registry.ts'),
  rollback: () => import('./commands/rollback.ts'),
  secret: () => import('./commands/secret.ts'),
  status: () => import('./commands/status.ts'),
  tls: () => import('./commands/tls.ts'),
  traffic: () => import('./commands/traffic.ts'),
  up: () => import('./commands/up.ts'),
  validate: () => import('./commands/validate.ts'),
  version: () => import('./commands/version.ts'),
};

export const COMMAND_NAMES = Object.keys(COMMANDS).sort();
