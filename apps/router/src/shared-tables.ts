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

export type { StickyOwnerRecorder } from './admit/teleport-buckets.ts';
