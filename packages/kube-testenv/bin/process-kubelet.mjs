#!/usr/bin/env node
// The process kubelet of the test cluster (see packages/kube-testenv/README.md).
import { register } from 'tsx/esm/api';

register();
await import('../src/kubelet/main.ts');
