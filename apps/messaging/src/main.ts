// The bundle's entry: main.js (tools/webpack/service-launcher.js) evaluates it, then calls `main`.
import { startTracing } from '@homing/platform/tracing';

startTracing('messaging');
// Required after tracing starts, so its instrumentations can patch pg, http and NATS as they load.
// eslint-disable-next-line @typescript-eslint/no-require-imports
export const { main } = require('./service') as typeof import('./service');
