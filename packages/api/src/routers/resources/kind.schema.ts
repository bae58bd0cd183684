import { z } from 'zod';
import { RESOURCE_KINDS, type ResourceKind } from '@orrery/spec';

/** Any kind the store holds (Function, Revision, Environment, RegistryCluster, StateSync). */
export const KindSchema = z.enum(RESOURCE_KINDS as [ResourceKind, ...ResourceKind[]], { error: `kind must be one of ${RESOURCE_KINDS.join(', ')}` });
