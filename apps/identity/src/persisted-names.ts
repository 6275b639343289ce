// WARNING: persisted names. Each names data that outlives a deploy: renaming one loses that data (or starts a new,
// empty copy beside it). Every use imports the name from here.

/** The PostgreSQL schema holding identity's tables (users, sessions, login codes, …, outbox). */
export const IDENTITY_SCHEMA = 'identity';

// No durable consumers or queues: identity consumes no events. The streams it publishes to belong to libs/contracts
// (STREAMS), which every service declares.
