export { LocalFunctionOperator, type LocalFunctionOperatorOptions } from './backends/local/local-function-operator.ts';
export { LocalBackend, type LocalBackendOptions } from './backends/local/local-backend.ts';
export type { StateCredentials } from '@orrery/spec';
export { WorkQueue } from './queue/work-queue.ts';
export { revisionToCreate, sortRevisions } from './reconcile/function-revisions.ts';
export { functionStatus, routableRevisions } from './reconcile/function-status.ts';
