#!/usr/bin/env node
// Runs the TypeScript sources through tsx so a fresh clone needs no build step.
import { register } from 'tsx/esm/api';

// React's development build costs about a third more CPU per frame; tests set NODE_ENV themselves.
process.env.NODE_ENV ??= 'production';
register();
await import('../source/cli.tsx');
