export * from './access-tokens';
