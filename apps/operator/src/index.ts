export { FunctionOperator, type OperatorOptions } from './controller.ts';
export { LocalBackend, type LocalBackendOptions, type StateCredentials } from './backends/local/local-backend.ts';
export { WorkQueue } from './queue/work-queue.ts';
export { revisionToCreate, sortRevisions } from './reconcile/function-revisions.ts';
export { functionStatus, routableRevisions } from './reconcile/function-status.ts';
