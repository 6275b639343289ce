export * from './database.options';
export * from './migrate';
export * from './platform-tables.migration';
export * from './query-counter';
