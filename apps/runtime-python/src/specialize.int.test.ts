/** The runtime contract's "specialize" part (apps/runtime/src/testing/runtime-contract-suite.ts), passed by the Python runtime. */
import { runtimeContractSuite } from '../../runtime/src/testing/runtime-contract-suite.ts';
import { pythonRuntime } from './testing/python-runtime.ts';

runtimeContractSuite(pythonRuntime, ['specialize']);
