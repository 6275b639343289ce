// WARNING: persisted names. Each names data that outlives a deploy: renaming one loses that data (or starts a new,
// empty copy beside it). Every use imports the name from here.

/** The PostgreSQL schema holding items' tables (items, tag batches, photos, outbox). */
export const ITEMS_SCHEMA = 'items';

// No durable consumers or queues: items consumes no events. The streams it publishes to belong to libs/contracts
// (STREAMS), which every service declares.
