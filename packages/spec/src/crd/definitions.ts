import type { z } from 'zod';
import { API_GROUP, API_VERSION } from '../meta.ts';
import { KIND_SCHEMAS, type ResourceKind } from '../resource.ts';
import { toCelValidation } from '../validate/rules/object-rule.ts';
import { ROOT_RULES } from '../validate/rules/root-rules.ts';
import { describeField } from './descriptions.ts';
import { toOpenApi, type OpenApiSchema } from './openapi.ts';

interface PrinterColumn {
  name: string;
  type: 'string' | 'integer' | 'number' | 'boolean' | 'date';
  jsonPath: string;
  description?: string;
  priority?: number;
}

interface KindNames {
  plural: string;
  singular: string;
  shortNames: string[];
  columns: PrinterColumn[];
}

const READY: PrinterColumn = { name: 'Ready', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].status' };
const REASON: PrinterColumn = { name: 'Reason', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].reason', priority: 1 };
const AGE: PrinterColumn = { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' };

export const KIND_NAMES: Record<ResourceKind, KindNames> = {
  Function: {
    plural: 'functions',
    singular: 'function',
    shortNames: ['fn'],
    columns: [
      { name: 'URL', type: 'string', jsonPath: '.status.url' },
      { name: 'LatestCreated', type: 'string', jsonPath: '.status.latestCreatedRevision' },
      { name: 'LatestReady', type: 'string', jsonPath: '.status.latestReadyRevision' },
      READY,
      REASON,
      AGE,
    ],
  },
  Revision: {
    plural: 'revisions',
    singular: 'revision',
    shortNames: ['rev'],
    columns: [
      { name: 'Function', type: 'string', jsonPath: '.spec.function' },
      { name: 'Desired', type: 'integer', jsonPath: '.status.desiredScale' },
      { name: 'Actual', type: 'integer', jsonPath: '.status.actualScale' },
      { name: 'Mode', type: 'string', jsonPath: '.status.autoscalerMode' },
      READY,
      REASON,
      AGE,
    ],
  },
  Environment: {
    plural: 'environments',
    singular: 'environment',
    shortNames: ['env'],
    columns: [
      { name: 'Image', type: 'string', jsonPath: '.spec.image' },
      { name: 'Pool', type: 'integer', jsonPath: '.spec.poolSize' },
      { name: 'Sharing', type: 'string', jsonPath: '.spec.allowedFunctionsPerContainer', priority: 1 },
      READY,
      AGE,
    ],
  },
  RegistryCluster: {
    plural: 'registryclusters',
    singular: 'registrycluster',
    shortNames: ['rc'],
    columns: [
      { name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas' },
      { name: 'ReadyReplicas', type: 'integer', jsonPath: '.status.readyReplicas' },
      { name: 'Leader', type: 'string', jsonPath: '.status.leader' },
      { name: 'Version', type: 'string', jsonPath: '.spec.version', priority: 1 },
      READY,
      AGE,
    ],
  },
  StateSync: {
    plural: 'statesyncs',
    singular: 'statesync',
    shortNames: ['ss'],
    columns: [
      { name: 'Component', type: 'string', jsonPath: '.spec.target.component' },
      { name: 'Period', type: 'string', jsonPath: '.spec.syncPeriod' },
      { name: 'RecordTTL', type: 'string', jsonPath: '.spec.recordTTL', priority: 1 },
      READY,
      AGE,
    ],
  },
};

/** The CustomResourceDefinition object for one kind (apiextensions.k8s.io/v1). */
export function crdFor(kind: ResourceKind): Record<string, unknown> {
  const names = KIND_NAMES[kind];
  const schema = KIND_SCHEMAS[kind] as unknown as z.ZodObject<{ spec: z.ZodType; status: z.ZodType }>;
  const spec = describeTree(kind, toOpenApi(schema.shape.spec), 'spec');
  const status = describeTree(kind, toOpenApi(schema.shape.status), 'status');
  const openAPIV3Schema: OpenApiSchema = {
    type: 'object',
    description: `${kind} of the ${API_GROUP} API group. Generated from packages/spec.`,
    properties: {
      apiVersion: { type: 'string', description: 'APIVersion defines the versioned schema of this representation of an object.' },
      kind: { type: 'string', description: 'Kind is a string value representing the REST resource this object represents.' },
      metadata: { type: 'object' },
      spec,
      status,
    },
    required: ['spec'],
    'x-kubernetes-validations': ROOT_RULES[kind].map(toCelValidation),
  };
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${names.plural}.${API_GROUP}`, labels: { 'app.kubernetes.io/part-of': 'orrery' } },
    spec: {
      group: API_GROUP,
      names: { kind, listKind: `${kind}List`, plural: names.plural, singular: names.singular, shortNames: names.shortNames, categories: ['orrery', 'all'] },
      scope: 'Namespaced',
      versions: [
        {
          name: API_VERSION,
          served: true,
          storage: true,
          subresources: { status: {} },
          additionalPrinterColumns: names.columns,
          schema: { openAPIV3Schema },
        },
      ],
    },
  };
}

/** Puts the field descriptions (descriptions.ts) on every node of a schema; first key wins in YAML order. */
export function describeTree(kind: string, node: OpenApiSchema, path: string): OpenApiSchema {
  const { type, ...rest } = node;
  const description = describeField(kind, path) ?? node.description;
  const out: OpenApiSchema = { type, ...(description ? { description } : {}), ...rest };
  if (description) out.description = description;
  if (node.properties) {
    out.properties = Object.fromEntries(Object.entries(node.properties).map(([k, v]) => [k, describeTree(kind, v, `${path}.${k}`)]));
  }
  if (node.items) out.items = describeTree(kind, node.items, `${path}[]`);
  return out;
}
