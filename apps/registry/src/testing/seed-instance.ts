/**
 * The seed example of the registry's docs (an order-center API instance in `prod`), for the tests
 * that register, parse or match it: one copy, so that the tests agree on what "the seed" is.
 */

/** The order-center API service: its namespace, full name and the segments the name is made of. */
export const ORDER_CENTER_API = {
  namespace: 'prod',
  service: 'company.trade.order.order-center.api',
  organization: 'company',
  businessDomain: 'trade',
  capabilityDomain: 'order',
  application: 'order-center',
  role: 'api',
} as const;

/** The seed registration body, as a client sends it. */
export const SEED_REGISTRATION = {
  ...ORDER_CENTER_API,
  instanceId: 'order-center-api-10.0.1.23',
  zone: 'az1',
  labels: { color: 'gray', version: 'v2' },
  metadata: { build_sha: 'abc123', owner: 'trade-team' },
  endpoints: [
    { name: 'http', protocol: 'http', host: '10.0.1.23', port: 8080, weight: 100 },
    { name: 'metrics', protocol: 'http', host: '10.0.1.23', port: 8080, path: '/metrics', weight: 100 },
    { name: 'grpc', protocol: 'grpc', host: '10.0.1.23', port: 9090, weight: 100 },
  ],
  leaseTtlSeconds: 30,
};
