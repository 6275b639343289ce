export * from './database';
export * from './database.options';
export * from './migrate';
export * from './platform-tables.migration';
export * from './query-counter';
export * from './query-error';
