/**
 * Sources, the third wiring step: the watches that feed the components. Routes come from the
 * routes file or the resource store; endpoints from the endpoints file and the registry (their
 * union is the endpoint index). A bad update keeps the last good state and is logged.
 */
import type { EndpointSource } from '../endpoints/endpoint-source.ts';
import { watchEndpointsFile } from '../endpoints/endpoints-file.ts';
import { RegistryWatch } from '../endpoints/registry-watch.ts';
import type { RouteTable } from '../routing/route-table.ts';
import { watchRoutesFile, type RouteSource } from '../routing/routes-file.ts';
import { watchStoreRoutes } from '../routing/store-route-source.ts';
import type { RouterComponents } from './router-components.ts';
import type { RouterOptions } from './router-options.ts';

export interface RouterSources {
  /** Absent without `--registry-url`. */
  registry: RegistryWatch | undefined;
  stop(): Promise<void>;
}

const message = (err: unknown): string => String(err instanceof Error ? err.message : err);

export async function startRouterSources(o: RouterOptions, c: RouterComponents): Promise<RouterSources> {
  let registry: RegistryWatch | undefined;
  const onRoutes = (t: RouteTable): void => {
    c.plane.setRoutes(t);
    registry?.setNamespaces(o.registryNamespaces ?? t.namespaces());
    o.log(`routes loaded: ${t.list().length} functions, ${t.revisions.size} revisions`);
  };
  let routes: RouteSource | undefined;
  if (o.routesFile) routes = await watchRoutesFile(o.routesFile, onRoutes, (err) => o.log(`routes file: ${message(err)} (keeping the last good routes)`, 'warn'));
  else if (o.store) routes = await watchStoreRoutes(o.store, onRoutes, (err) => o.log(`resource store: ${message(err)} (keeping the last good routes)`, 'warn'));

  const endpointSources: EndpointSource[] = [];
  if (o.endpointsFile) {
    endpointSources.push(await watchEndpointsFile(o.endpointsFile, c.endpoints.setFile, (err) => o.log(`endpoints file: ${message(err)} (keeping the last good endpoints)`, 'warn')));
  }
  if (o.registryUrl) {
    registry = new RegistryWatch({
      url: o.registryUrl,
      namespaces: o.registryNamespaces ?? c.plane.routes.namespaces(),
      token: o.registryToken,
      onRecords: c.endpoints.setRegistry,
      onIgnored: c.endpoints.ignoredInstance,
      onError: (err) => o.log(`registry watch: ${message(err)}`, 'warn'),
    });
    endpointSources.push(registry);
  }

  return {
    registry,
    async stop() {
      routes?.stop();
      await Promise.allSettled(endpointSources.map((s) => s.stop()));
    },
  };
}
