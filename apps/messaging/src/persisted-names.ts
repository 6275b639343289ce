// WARNING: persisted names. Each names data that outlives a deploy: renaming one loses that data (or starts a new,
// empty copy beside it). Every use imports the name from here.

/** The PostgreSQL schema holding messaging's tables (conversations, messages, item_owners, outbox). */
export const MESSAGING_SCHEMA = 'messaging';

/**
 * The durable JetStream consumer keeping `item_owners` from items' events: its position in the stream, and the
 * `processed_events` rows and dead letters filed under it. A new name would replay the stream from the start.
 */
export const ITEM_OWNERS_CONSUMER = 'messaging__item-owners';

/** The durable consumer setting `delivered_at` from notifications' `notifications.message.delivered.v1`. */
export const RECEIPTS_CONSUMER = 'messaging__receipts';

/** The durable consumer erasing an erased user's items and conversations (`identity.user.deleted.v1`). */
export const USER_ERASURE_CONSUMER = 'messaging__user-erasure';

/** The durable consumer erasing them a second time, minutes later (ErasureSecondPass). */
export const USER_ERASURE_SECOND_PASS = 'messaging__user-erasure-second-pass';

/**
 * The durable consumer clearing an item's conversations when it passes to a new owner (`items.item.transferred.v1`):
 * its position in the stream and its ledger rows. A new name would replay the stream from the start.
 */
export const ITEM_TRANSFERS_CONSUMER = 'messaging__item-transfers';

// No queues of its own. The streams it consumes and publishes to belong to libs/contracts (STREAMS).
