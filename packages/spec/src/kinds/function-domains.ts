import { z } from 'zod';

/**
 * `spec.domains[]`: host names the router serves this Function on, with TLS from a Secret
 * (docs/domains.md). Owned by the custom-domain work; the shape below is the skeleton.
 */
export const DomainSchema = z.object({
  /** A fully qualified host name, e.g. shop.example.com. */
  host: z.string().min(1).max(253),
});
export type Domain = z.infer<typeof DomainSchema>;

/** `status.domains[]`: whether the router serves each host, and why not. */
export const DomainStatusSchema = z.object({
  host: z.string(),
});
export type DomainStatus = z.infer<typeof DomainStatusSchema>;
