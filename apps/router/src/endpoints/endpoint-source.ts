import type { EndpointRecord } from '../admit/endpoint-index.ts';

/** Where endpoints come from (file or registry watch): each report is the complete current set. */
export interface EndpointSource {
  stop(): Promise<void>;
}

export type EndpointsListener = (records: EndpointRecord[]) => void;
