#!/usr/bin/env node
// Runs the TypeScript source through tsx: internal packages ship as source, no build step.
import { register } from 'tsx/esm/api';

register();
await import('../src/build-main.ts');
