/** The runtime contract's "structured-logs" part (testing/runtime-contract-suite.ts), passed by the Node runtime. */
import { nodeRuntime } from './testing/node-runtime.ts';
import { runtimeContractSuite } from './testing/runtime-contract-suite.ts';

runtimeContractSuite(nodeRuntime, ['structured-logs']);
