export * from './config';
export * from './inject-config';
