import type { Connection } from '@orrery/db';
import type { ResourceStore } from '@orrery/store';
import type { LoginRateLimiter } from './auth/login-rate-limit.ts';

export const ROLES = ['viewer', 'operator', 'admin'] as const;
export type Role = (typeof ROLES)[number];

/** Who is calling, from a session cookie / bearer session id or the admin token. */
export interface Principal {
  who: string;
  role: Role;
  via: 'session' | 'admin-token';
}

/** Long-lived dependencies, built once per process and shared by every request. */
export interface ApiServices {
  store: ResourceStore;
  /** The database holding audit log, users, sessions and rollups (may be the store's). */
  db: Connection;
  /** The admin token (read from a file or secret); absent = token login disabled. */
  adminToken?: string;
  /** statesvc base URL and the master key that signs its admin URLs (absent key = pass-through statesvc). */
  statesvc?: { url: string; masterKey?: Buffer };
  /** Admin base URLs (`http://host:adminPort`) of every router replica; a function so it can follow discovery. */
  routerAdminUrls?: () => string[] | Promise<string[]>;
  /** Bearer for the routers' `/v1/hot-keys` (the store token, which routers started with `--store-token-file` require there). */
  routerToken?: string;
  /** Session lifetime (default 12 h). */
  sessionTtlMs?: number;
  /** Timeout for calls to statesvc / routers / registry (default 3 s). */
  upstreamTimeoutMs?: number;
  now?: () => Date;
  /**
   * Failed-login counts per user and address (auth.login answers 429 beyond them). The HTTP
   * handler supplies one per process when this is absent; without any, logins are not limited.
   */
  loginLimiter?: LoginRateLimiter;
}

/** What a procedure sees: the services plus this request's caller and cookie sink. */
export interface ApiContext extends ApiServices {
  principal?: Principal;
  /** Raw session id presented by this request (for logout). */
  sessionId?: string;
  /** Cookies get `Secure` when the request came over https. */
  secure: boolean;
  /** The client's address (through a trusted proxy: the address it reports), for login limits. */
  clientAddress?: string;
  /** Collects Set-Cookie values; the HTTP handler sends them with the response. */
  setCookie(value: string): void;
  /** Sets a response header (e.g. Retry-After); absent outside HTTP. */
  setHeader?(name: string, value: string): void;
}
