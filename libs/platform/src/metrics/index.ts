export * from './metrics';
export * from './metrics.controller';
export * from './series-histogram';
