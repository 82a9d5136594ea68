#!/usr/bin/env node
// Runs the TypeScript sources through tsx so `npx echo-agent` works right after `npm ci`.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/main.ts');
