import type { Message, MessageAuthor, ThreadMessage } from '@homing/contracts';
import { ownsItem, type ItemOwner } from '../item-owners/item-owners.repository';
import { maskContactDetails } from './contact-details';
import type { ConversationRow, MessageRow } from './conversations.repository';

/** Who is asking about an item's thread. */
export type ThreadCaller = { role: 'owner' } | { role: 'finder'; conversation: ConversationRow } | { role: 'stranger' };

/**
 * The owner, or a co-owner (an owner to the thread: they read every conversation and reply as the owner), is
 * recognised by their access token, whatever finder token they also send; a finder by the token of a conversation of
 * this item. Anyone else (a passer-by, a finder whose conversation was reset, a co-owner removed) is a stranger.
 */
export function threadCaller(item: Pick<ItemOwner, 'ownerUserId' | 'coOwnerUserIds'>, viewerUserId: string | null, finderConversation: ConversationRow | null): ThreadCaller {
  if (ownsItem(item, viewerUserId)) return { role: 'owner' };
  if (finderConversation) return { role: 'finder', conversation: finderConversation };
  return { role: 'stranger' };
}

/** "Finder 1", "Finder 2"… by the order conversations began; none when there is only one finder. */
export function finderLabels(conversations: ConversationRow[]): Map<string, string> {
  if (conversations.length < 2) return new Map();
  const ordered = [...conversations].sort((a, b) => a.created_at.getTime() - b.created_at.getTime() || a.id.localeCompare(b.id));
  return new Map(ordered.map((conversation, index) => [conversation.id, `Finder ${index + 1}`]));
}

export function toMessage(row: MessageRow, labels: Map<string, string> = new Map()): Message {
  const label = labels.get(row.conversation_id);
  return {
    id: Number(row.id),
    conversation_id: row.conversation_id,
    author: row.author,
    content: row.content,
    created_at: row.created_at.toISOString(),
    // The spec's field: an owner's message counts as read; who read a reply, and when, is `read_at`.
    is_read: row.author === 'owner' || row.read_at !== null,
    delivered_at: row.delivered_at?.toISOString() ?? null,
    read_at: row.read_at?.toISOString() ?? null,
    version: Math.max(Number(row.id), row.receipt_version ?? 0),
    ...(label ? { finder: label } : {}),
    ...(row.location_lat !== null && row.location_lon !== null
      ? { location: { lat: row.location_lat, lon: row.location_lon, accuracy_m: row.location_accuracy_m ?? 0, precise: row.location_precise === true } }
      : {}),
  };
}

/** Whether both sides agreed to share contact details: then every reader sees every message as written. */
export function sharesContactDetails(conversation: Pick<ConversationRow, 'finder_consented_at' | 'owner_consented_at'>): boolean {
  return conversation.finder_consented_at !== null && conversation.owner_consented_at !== null;
}

/**
 * A message as `reader` sees it: its writer always as written; the other side with phone numbers, IBANs, e-mail
 * addresses and links masked until both sides shared contact details. The one place masking is decided.
 */
export function asReadBy(message: Message, reader: MessageAuthor, shared: boolean): Message {
  if (shared || message.author === reader || message.content === '') return message;
  const masked = maskContactDetails(message.content);
  return masked.kinds.length === 0 ? message : { ...message, content: masked.text, masked: masked.kinds };
}

/** A message as written, with what the writer's other side reads instead while it holds masked details (for streams). */
export function withOtherSide(message: Message, shared: boolean): ThreadMessage {
  if (shared || message.content === '') return message;
  const masked = maskContactDetails(message.content);
  return masked.kinds.length === 0 ? message : { ...message, other_side: { content: masked.text, masked: masked.kinds } };
}
