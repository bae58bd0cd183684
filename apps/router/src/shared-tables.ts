/**
 * What the data plane needs from the two tables shared across replicas through statesync
 * (engineer D's EndpointQuarantineTable and StickyOwnerTable satisfy these shapes).
 */
export interface QuarantineTable {
  quarantine(address: string, untilMs: number): void;
  lift(address: string): void;
  isQuarantined(address: string, nowMs?: number): boolean;
  entries(): Array<{ address: string; untilMs: number }>;
}

/**
 * Teleport detection (RFC-0023 §6, per key rather than per bucket): the data plane tells the owner
 * table where each sticky key was admitted and learns whether the key was last admitted elsewhere.
 */
export interface StickyOwnerRecorder {
  /** `keyHashHi`/`keyHashLo`: the key's FNV-1a-64. Returns the previous endpoint when the key moved (a teleport). */
  record(functionKey: string, keyHashHi: number, keyHashLo: number, address: string, atMs: number): string | undefined;
  /** How full the bounded table is (for /metrics). */
  usage(): { entries: number; capacity: number; evictions: number };
}

/** Both tables shared through Redis (shared-tables-redis.ts); absent, each replica keeps its own. */
export interface SharedTables {
  quarantine: QuarantineTable;
  owners: StickyOwnerRecorder;
  status(): unknown;
  stop(): Promise<void>;
}
