export * from './eventually';
export * from './infra';
export * from './isolation';
export * from './service-process';
export * from './sweep';
export * from './wait-for-event';
export * from './keys';
export * from './smtp-sink';
