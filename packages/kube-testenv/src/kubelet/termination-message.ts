import { closeSync, openSync, readSync, statSync } from 'node:fs';

/** The kubelet's caps: a message file is read up to 4096 bytes; a log fallback keeps 80 lines and 2048 bytes. */
export const MAX_MESSAGE_BYTES = 4096;
export const FALLBACK_LOG_LINES = 80;
export const FALLBACK_LOG_BYTES = 2048;

/** The last `max` bytes of a file ('' when missing). */
function tailOf(file: string, max: number): string {
  try {
    const size = statSync(file).size;
    const len = Math.min(size, max);
    const buf = Buffer.alloc(len);
    const fd = openSync(file, 'r');
    try {
      readSync(fd, buf, 0, len, size - len);
    } finally {
      closeSync(fd);
    }
    return buf.toString('utf8');
  } catch {
    return '';
  }
}

function headOf(file: string, max: number): string {
  try {
    const fd = openSync(file, 'r');
    try {
      const buf = Buffer.alloc(max);
      const n = readSync(fd, buf, 0, max, 0);
      return buf.subarray(0, n).toString('utf8');
    } finally {
      closeSync(fd);
    }
  } catch {
    return '';
  }
}

/**
 * A terminated container's `message`, as the kubelet makes it: what the container wrote to its
 * terminationMessagePath (bind-mounted from `messageFile`), else — with policy
 * FallbackToLogsOnError and a failed exit — the tail of its log. Undefined when there is neither.
 */
export function terminationMessage(messageFile: string, policy: string | undefined, exitCode: number, logFile: string): string | undefined {
  const written = headOf(messageFile, MAX_MESSAGE_BYTES);
  if (written.length > 0) return written;
  if (policy !== 'FallbackToLogsOnError' || exitCode === 0) return undefined;
  const lines = tailOf(logFile, FALLBACK_LOG_BYTES).replace(/\n+$/, '').split('\n').slice(-FALLBACK_LOG_LINES).join('\n');
  return lines.length > 0 ? lines : undefined;
}
