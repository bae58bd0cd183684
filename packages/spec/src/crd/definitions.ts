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

/**
 * Kubernetes' names for a kind (lower-case singular, plural with an s) and its `kubectl get`
 * columns: its own, then Ready, Ready's reason in wide output where that says more, and Age.
 */
function kindNames(kind: ResourceKind, shortName: string, own: PrinterColumn[], { reason = false } = {}): KindNames {
  const singular = kind.toLowerCase();
  return { plural: `${singular}s`, singular, shortNames: [shortName], columns: [...own, READY, ...(reason ? [REASON] : []), AGE] };
}

/** A string / an integer printer column at a JSON path; `priority: 1` shows only with `-o wide`. */
const text = (name: string, jsonPath: string, priority?: number): PrinterColumn => ({ name, type: 'string', jsonPath, ...(priority ? { priority } : {}) });
const count = (name: string, jsonPath: string): PrinterColumn => ({ name, type: 'integer', jsonPath });

export const KIND_NAMES: Record<ResourceKind, KindNames> = {
  Function: kindNames('Function', 'fn', [text('URL', '.status.url'), text('LatestCreated', '.status.latestCreatedRevision'), text('LatestReady', '.status.latestReadyRevision')], { reason: true }),
  Revision: kindNames('Revision', 'rev', [text('Function', '.spec.function'), count('Desired', '.status.desiredScale'), count('Actual', '.status.actualScale'), text('Mode', '.status.autoscalerMode')], { reason: true }),
  Environment: kindNames('Environment', 'env', [text('Image', '.spec.image'), count('Pool', '.spec.poolSize'), text('Sharing', '.spec.allowedFunctionsPerContainer', 1)]),
  RegistryCluster: kindNames('RegistryCluster', 'rc', [count('Replicas', '.spec.replicas'), count('ReadyReplicas', '.status.readyReplicas'), text('Leader', '.status.leader'), text('Version', '.spec.version', 1)]),
  StateSync: kindNames('StateSync', 'ss', [text('Component', '.spec.target.component'), text('Period', '.spec.syncPeriod'), text('RecordTTL', '.spec.recordTTL', 1)]),
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
