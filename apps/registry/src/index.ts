export { startRegistry, type RunningRegistry, type StartOptions } from './server.ts';
export { loadConfig, type RegistryConfig } from './config.ts';
export type { Instance, InstanceRecord, Endpoint } from './model/instance.ts';
export { parseServiceName, formatServiceName } from './model/service-name.ts';
export { orreryServiceName, orreryInstanceLabels } from './model/orrery-naming.ts';
export type { WatchEvent } from './watch/watch-session.ts';
