import type { ResourceKind } from '../../resource.ts';
import { FUNCTION_NAME_ROOM, NAME_FORMAT, NAME_LENGTH, REVISION_NAME } from './name-rules.ts';
import type { ObjectRule } from './object-rule.ts';
import { TRAFFIC_REVISION_OWNED } from './traffic-rules.ts';

/**
 * Rules that sit on the CRD's root because they read `metadata.name`, the one metadata field
 * CEL can see. The rules on inner fields travel with the zod schemas (`withCel`).
 */
export const ROOT_RULES: Record<ResourceKind, readonly ObjectRule[]> = {
  Function: [NAME_FORMAT, NAME_LENGTH, FUNCTION_NAME_ROOM, TRAFFIC_REVISION_OWNED],
  Revision: [NAME_FORMAT, NAME_LENGTH, REVISION_NAME],
  Environment: [NAME_FORMAT, NAME_LENGTH],
  RegistryCluster: [NAME_FORMAT, NAME_LENGTH],
  StateSync: [NAME_FORMAT, NAME_LENGTH],
};
