/**
 * The rules of `spec.triggers.cron[]` that a JSON-schema pattern cannot say, each with its CEL
 * twin (object-rule.ts). The schedule's shape is checked field by field here, in both languages;
 * validate() also asks croner (a range written backwards, a schedule that never fires), which
 * CEL cannot, so the webhook is stricter than the API server alone: the operator reports a
 * schedule that slipped through as a failed trigger in status.
 */
import { duplicates } from './duplicates.ts';
import { isRecord, type ObjectRule } from './object-rule.ts';

/** Longest schedule and time zone strings (CEL's cost estimate needs bounds). */
export const MAX_CRON_SCHEDULE_LENGTH = 100;
export const MAX_TIME_ZONE_LENGTH = 64;
/** IANA zone names: Area/Location[/Sub], or a single word (UTC, GMT, EST5EDT, Etc/GMT+5). */
export const TIME_ZONE_PATTERN = /^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+){0,2}$/;

/** `word` in any letter case, for RE2 and JavaScript alike (no inline flags in one of them). */
const anyCase = (word: string) => [...word].map((c) => (/[a-z]/i.test(c) ? `[${c.toLowerCase()}${c.toUpperCase()}]` : c)).join('');
const names = (list: string[]) => list.map(anyCase).join('|');
const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const DAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];

const STEP = '/[1-9][0-9]?';
/** One item of a field: `*`, `*∕n`, `v`, `a-b`, `a-b∕n`. */
const item = (value: string) => `(\\*(${STEP})?|(${value})(-(${value})(${STEP})?)?)`;
const list = (value: string) => `${item(value)}(,${item(value)})*`;
const MINUTE = '[0-5]?[0-9]';
const HOUR = '[01]?[0-9]|2[0-3]';
const DAY_OF_MONTH = '0?[1-9]|[12][0-9]|3[01]';
const MONTH = `0?[1-9]|1[0-2]|${names(MONTHS)}`;
const DAY_OF_WEEK = `[0-7]|${names(DAYS)}`;
/** A leading seconds field: explicit seconds only, at most six a minute. */
const SECONDS = '[0-5]?[0-9](,[0-5]?[0-9]){0,5}';
const FIVE_FIELDS = [list(MINUTE), list(HOUR), `(\\?|${list(DAY_OF_MONTH)})`, list(MONTH), `(\\?|${list(DAY_OF_WEEK)})`].join(' +');
const NICKNAMES = '@(yearly|annually|monthly|weekly|daily|midnight|hourly)';

/** The schedule's grammar (cron-schedule.ts describes it), one regular expression for RE2 and JavaScript. */
export const CRON_SCHEDULE_PATTERN = new RegExp(`^ *(${NICKNAMES}|(${SECONDS} +)?${FIVE_FIELDS}) *$`);

const celString = (re: RegExp) => re.source.replaceAll('\\', '\\\\');

/** On spec.triggers.cron[].schedule: five fields (or six, seconds first) or a nickname. */
export const CRON_SCHEDULE_SHAPE: ObjectRule = {
  reason: 'cron_schedule',
  cel: `self.matches('${celString(CRON_SCHEDULE_PATTERN)}')`,
  holds: (v) => typeof v !== 'string' || CRON_SCHEDULE_PATTERN.test(v),
};

/** Header names a trigger may not set: the router's and Orrery's own, and hop-by-hop or framing ones. */
export const RESERVED_HEADER_PATTERN =
  /^(orrery-.*|x-orrery-.*|host|content-length|transfer-encoding|connection|keep-alive|upgrade|te|trailer|expect|proxy-.*|forwarded|x-forwarded-.*|x-real-ip)$/;

/** On each spec.triggers.cron[].headers[] item. */
export const CRON_HEADER_NOT_RESERVED: ObjectRule = {
  reason: 'cron_header_reserved',
  cel: `!has(self.name) || !self.name.lowerAscii().matches('${celString(RESERVED_HEADER_PATTERN)}')`,
  fieldPath: '.name',
  holds: (h) => !isRecord(h) || typeof h.name !== 'string' || !RESERVED_HEADER_PATTERN.test(asciiLower(h.name)),
};

/** On spec.triggers.cron[].headers: each name once, letter case aside (HTTP names are case-insensitive). */
export const CRON_HEADERS_UNIQUE: ObjectRule = {
  reason: 'cron_header_duplicate',
  cel: 'self.all(h, !has(h.name) || self.exists_one(g, has(g.name) && g.name.lowerAscii() == h.name.lowerAscii()))',
  holds: (headers) => {
    if (!Array.isArray(headers)) return true;
    const seen = new Set<string>();
    for (const h of headers) {
      if (!isRecord(h) || typeof h.name !== 'string') continue;
      const name = asciiLower(h.name);
      if (seen.has(name)) return false;
      seen.add(name);
    }
    return true;
  },
};

/** On each spec.triggers.cron[]: a body needs a method that carries one (GET does not). */
export const CRON_BODY_METHOD: ObjectRule = {
  reason: 'cron_body_method',
  cel: "!(has(self.method) && self.method == 'GET' && has(self.body) && size(self.body) > 0)",
  fieldPath: '.body',
  holds: (t) => !isRecord(t) || !(t.method === 'GET' && typeof t.body === 'string' && t.body.length > 0),
};

/** CEL's lowerAscii: only A-Z change (toLowerCase would also fold non-ASCII letters). */
function asciiLower(s: string): string {
  return s.replace(/[A-Z]/g, (c) => c.toLowerCase());
}

/** On spec.triggers.cron: each name once (the status entry and Events are keyed on it). */
export const CRON_TRIGGER_NAMES_UNIQUE: ObjectRule = {
  reason: 'trigger_name_duplicate',
  cel: 'self.all(t, !has(t.name) || self.exists_one(u, has(u.name) && u.name == t.name))',
  holds: (list) => duplicates(Array.isArray(list) ? list.map((t) => (isRecord(t) ? t.name : undefined)) : []).length === 0,
};
