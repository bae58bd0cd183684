import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { parseUsersFile, syncUsers, type UserLine } from '@orrery/api';
import type { Connection } from '@orrery/db';

type Log = (msg: string, fields?: Record<string, unknown>) => void;

/**
 * The users file as the one source of users (`--users-file`): loaded at start (a bad line stops
 * start-up), then checked before every admin API request — a stat, and a read only when it
 * changed — so removing a user or changing a role ends their sessions before their next call
 * (users-sync.ts). Changes after start are applied fail-closed: a bad line is logged and its
 * user has no access until it is fixed; a missing or unreadable file means no users (the admin
 * token still works).
 */
export class UsersFileSource {
  private signature = '';
  private contentHash = '';
  private inflight: Promise<void> | undefined;

  constructor(
    readonly path: string,
    private readonly conn: Connection,
    private readonly log: Log = () => {},
  ) {}

  /** The first load: throws on any bad line, like before the file was watched. */
  async load(): Promise<void> {
    const sig = await this.stat();
    const text = await readFile(this.path, 'utf8');
    const { users, problems } = parseUsersFile(text);
    if (problems.length) throw new Error(`users file ${this.path}: ${problems.join('; ')}`);
    await this.apply(users, 'admin API users loaded');
    this.signature = sig;
    this.contentHash = hash(text);
  }

  /** Re-reads the file when it changed since the last look; concurrent callers share one look. */
  refresh(): Promise<void> {
    this.inflight ??= this.check().finally(() => (this.inflight = undefined));
    return this.inflight;
  }

  private async stat(): Promise<string> {
    try {
      const s = await stat(this.path);
      return `${s.ino}:${s.size}:${s.mtimeMs}:${s.ctimeMs}`;
    } catch (err) {
      return `missing:${(err as NodeJS.ErrnoException).code ?? 'error'}`;
    }
  }

  private async check(): Promise<void> {
    const sig = await this.stat();
    if (sig === this.signature) return;
    let text = '';
    try {
      text = await readFile(this.path, 'utf8');
    } catch (err) {
      this.log('users file unreadable: no user may log in until it is back (the admin token still works)', { path: this.path, error: (err as NodeJS.ErrnoException).code ?? String(err) });
    }
    const h = hash(text);
    if (h !== this.contentHash) {
      const { users, problems } = parseUsersFile(text);
      // Line numbers and reasons only: never a hash.
      for (const p of problems) this.log('users file: line ignored until fixed', { path: this.path, problem: p });
      await this.apply(users, 'admin API users reloaded');
      this.contentHash = h;
    }
    this.signature = sig;
  }

  private async apply(users: UserLine[], msg: string): Promise<void> {
    const r = await syncUsers(this.conn, users);
    this.log(msg, { users: users.length, added: r.added, removed: r.removed, changed: r.changed, sessionsEnded: r.sessionsEnded });
  }
}

const hash = (text: string) => createHash('sha256').update(text).digest('hex');
