export * from './access-tokens';
export * from './public.decorator';
