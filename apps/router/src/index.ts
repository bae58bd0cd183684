export { admit, type Admission, type AdmitResult } from './admit/admit.ts';
export { Endpoint } from './admit/endpoint.ts';
export { EndpointIndex, revisionKey, type EndpointRecord } from './admit/endpoint-index.ts';
export { fnv1a64 } from './admit/fnv1a64.ts';
export { hrwOwner, hrwScore } from './admit/hrw.ts';
export { compileRoutes, RouteTable } from './routing/route-table.ts';
export { pickSticky, pickWeighted } from './routing/traffic-pick.ts';
export { startRouter, type RouterOptions, type RunningRouter } from './router-server.ts';
export type { StatsView } from './stats/router-stats.ts';
