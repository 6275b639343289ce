export * from './health.controller';
export * from './shutdown-state';
