// WARNING: persisted names. Each names data that outlives a deploy: renaming one loses that data (or starts a new,
// empty copy beside it). Every use imports the name from here.

/** The PostgreSQL schema holding items' tables (items, tag batches, photos, outbox). */
export const ITEMS_SCHEMA = 'items';

/**
 * The durable JetStream consumer erasing an erased user's items (`identity.user.deleted.v1`): its position in the
 * stream, and the `processed_events` rows and dead letters filed under it.
 */
export const USER_ERASURE_CONSUMER = 'items__user-erasure';

/** The durable JetStream consumer erasing an erased user's items a second time, minutes later (ErasureSecondPass). */
export const USER_ERASURE_SECOND_PASS = 'items__user-erasure-second-pass';

/** The durable JetStream consumer ending lost mode when a case is closed by a hand-over (`messaging.conversation.handed-over.v1`). */
export const HANDED_OVER_CONSUMER = 'items__handed-over';

// No queues. The streams it consumes and publishes to belong to libs/contracts (STREAMS), which every service declares.
