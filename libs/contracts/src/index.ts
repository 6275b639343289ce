export * from './envelope';
export * from './events';
export * from './http-error';
export * from './items';
export * from './response-codes';
export * from './rpc';
export * from './tag-code';
export * from './validation';
