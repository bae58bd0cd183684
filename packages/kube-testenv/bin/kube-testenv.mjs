#!/usr/bin/env node
// kube-testenv up: start the test cluster and keep it running (Ctrl-C stops it); Kubernetes tests
// started meanwhile use it instead of starting their own. kube-testenv down: stop a stale one.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli.ts');
