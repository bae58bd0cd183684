/**
 * The ConfigMap `orrery deploy --code` writes on Kubernetes, referenced from the Function's
 * spec.template.source.configMapRef. Named after a hash of the code, so new code is a new name —
 * a template change, hence a new Revision — while an old Revision keeps the ConfigMap with its
 * own code. Immutable, as its name promises what it holds.
 */
import { createHash } from 'node:crypto';
import { FUNCTION_LABEL, type Source } from '@orrery/spec';

export const CLI_FIELD_MANAGER = 'orrery-cli';
export const MANAGED_BY_LABEL = 'app.kubernetes.io/managed-by';
export const CODE_KEY = 'index.mjs';

export interface CodeConfigMap {
  apiVersion: 'v1';
  kind: 'ConfigMap';
  metadata: { name: string; namespace: string; labels: Record<string, string> };
  immutable: true;
  data: Record<string, string>;
}

export function codeConfigMap(namespace: string, functionName: string, code: string): { configMap: CodeConfigMap; source: Source } {
  const name = `${functionName}-code-${createHash('sha256').update(code).digest('hex').slice(0, 10)}`;
  return {
    configMap: {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name, namespace, labels: { [FUNCTION_LABEL]: functionName, [MANAGED_BY_LABEL]: CLI_FIELD_MANAGER } },
      immutable: true,
      data: { [CODE_KEY]: code },
    },
    source: { configMapRef: { name, key: CODE_KEY } },
  };
}
