export * from './client-network';
export * from './redis.client';
export * from './shared-limits';
export * from './window-counter';
