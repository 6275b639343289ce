export * from './jetstream-streams';
export * from './nats-namespace';
export * from './nats.connection';
export * from './rpc-error';
export * from './rpc.client';
export * from './rpc.server';
export * from './rpc-exception.filter';
