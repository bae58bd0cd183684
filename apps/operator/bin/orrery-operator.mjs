#!/usr/bin/env node
// In the repository: the compiled bundle when it is fresh, else the TypeScript source through
// tsx (scripts/app-launch.mjs says how it decides). Images run the bundle directly.
import { launchApp } from '../../../scripts/app-launch.mjs';

await launchApp('operator');
