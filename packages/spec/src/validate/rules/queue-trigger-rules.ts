import { duplicates } from './duplicates.ts';
import { isRecord, type ObjectRule } from './object-rule.ts';

/**
 * NATS subjects as a queue trigger may name them: tokens of letters, digits, "_", "-" and ":"
 * separated by ".", a token "*" matching any one token and a last token ">" matching one or more.
 * A subset of what NATS accepts (no "$" system subjects, no spaces or control characters), so a
 * subject is also safe in a header, a log line and a regular expression built from it.
 */
const TOKEN = '[A-Za-z0-9_:-]+';
export const QUEUE_SUBJECT_PATTERN = new RegExp(`^(?:(?:${TOKEN}|\\*)(?:\\.(?:${TOKEN}|\\*))*(?:\\.>)?|>)$`);
/** A subject without wildcards: where a dead letter is published. */
export const QUEUE_LITERAL_SUBJECT_PATTERN = new RegExp(`^${TOKEN}(?:\\.${TOKEN})*$`);
/** NATS' limit on a subject is the message size; this one keeps CEL's cost estimate bounded. */
export const MAX_QUEUE_SUBJECT = 255;
/** JetStream stream names: no ".", "*", ">", spaces or path separators; this subset is safe everywhere. */
export const QUEUE_STREAM_PATTERN = /^[A-Za-z0-9_-]+$/;
export const MAX_QUEUE_STREAM = 64;

/**
 * Whether the subject filter `filter` (wildcards allowed) matches the literal subject `subject`,
 * as NATS matches them: token by token, "*" one token, a last ">" one or more.
 */
export function subjectMatches(filter: string, subject: string): boolean {
  const f = filter.split('.');
  const s = subject.split('.');
  for (let i = 0; i < f.length; i++) {
    if (f[i] === '>') return i === f.length - 1 && s.length > i;
    if (i >= s.length) return false;
    if (f[i] !== '*' && f[i] !== s[i]) return false;
  }
  return f.length === s.length;
}

/** On spec.triggers.queue: each name once (the consumer, the status entry and Events are keyed on it). */
export const QUEUE_TRIGGER_NAMES_UNIQUE: ObjectRule = {
  reason: 'trigger_name_duplicate',
  cel: 'self.all(t, !has(t.name) || self.exists_one(u, has(u.name) && u.name == t.name))',
  holds: (list) => duplicates(Array.isArray(list) ? list.map((t) => (isRecord(t) ? t.name : undefined)) : []).length === 0,
};

/**
 * On each queue trigger: the dead-letter subject is not one the trigger reads, or a message that
 * failed would come straight back. CEL turns the filter into a regular expression (its tokens
 * hold no regex metacharacters: QUEUE_SUBJECT_PATTERN), as subjectMatches reads it.
 */
export const QUEUE_DEAD_LETTER_LOOP: ObjectRule = {
  reason: 'queue_dead_letter_loop',
  cel:
    `!has(self.deadLetterSubject) || !has(self.subject) || !self.subject.matches('${QUEUE_SUBJECT_PATTERN.source.replaceAll('\\', '\\\\')}') || ` +
    "!self.deadLetterSubject.matches('^' + self.subject.replace('.', '\\\\.').replace('*', '[^.]+').replace('>', '.+') + '$')",
  fieldPath: '.deadLetterSubject',
  holds: (t) =>
    !isRecord(t) ||
    typeof t.deadLetterSubject !== 'string' ||
    typeof t.subject !== 'string' ||
    !QUEUE_SUBJECT_PATTERN.test(t.subject) ||
    !subjectMatches(t.subject, t.deadLetterSubject),
};
