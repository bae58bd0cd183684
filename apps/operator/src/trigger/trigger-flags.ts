/**
 * The operator flags of triggers (docs/triggers.md), shared by both backends (wiring/shared-flags.ts
 * spreads them). Pure: a bad flag throws a UsageError naming it.
 */
import { UsageError } from '../wiring/command-line.ts';

export const TRIGGER_FLAGS = {
  'trigger-url': { type: 'string' },
} as const;

export const TRIGGER_USAGE = `  [--trigger-url URL (where cron and queue triggers send their calls: a router's function address, e.g. the router Service
   inside the cluster; default --router-url)]`;

export interface TriggerSettings {
  /** The router base URL triggered calls go to; undefined = --router-url. */
  url: string | undefined;
}

export function triggerSettingsFromFlags(values: Partial<Record<keyof typeof TRIGGER_FLAGS, string>>): TriggerSettings {
  const url = values['trigger-url'];
  if (url !== undefined && (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol))) {
    throw new UsageError(`--trigger-url ${JSON.stringify(url)} is not an http(s) URL`);
  }
  return { url };
}
