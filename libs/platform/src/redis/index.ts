export * from './redis.client';
