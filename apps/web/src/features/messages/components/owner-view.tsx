import { useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import type { Message, PublicItem } from '@homing/contracts';

import { FormError } from '../../../components/form/form-error';
import { PageTitle } from '../../../components/page-title';
import { QrImage } from '../../items';
import { messageKeys, postMessage } from '../api';
import { useFinderDetails, useUnreadCount } from '../owner-queries';
import { MessageBubble } from './message-bubble';
import { finderConversations, latestFinderConversation } from '../conversations';
import { MessageForm, type MessageDraft } from './message-form';
import { useThread } from '../use-thread';
import { useMarkLiveMessagesRead } from '../use-live-read';
import { PushOptIn } from '../../push';
import { useApi } from '../../../lib/api-context';
import { ApiError } from '../../../lib/api-transport';
import { errorText } from '../../../lib/error-catalogue';
import { ItemBackModal, ResetModal } from './item-modals';
import { ContactConsent } from './contact-consent';
import { ConversationClosed } from './handover';
import { HandoverCodeCard } from './handover-code-card';
import { useConversation } from '../use-conversation';

// Product spec §9: the owner sees the last 7 days of messages, and 5 more older ones per click.
export const SHOWN_MESSAGES_DAYS = 7;
export const OLDER_MESSAGES_PER_CLICK = 5;

/** Which messages the owner sees: those of the last 7 days, plus the `olderShown` most recent older ones. */
export function visibleMessages(messages: readonly Message[], olderShown: number, now = Date.now()): { visible: Message[]; hidden: number } {
  const since = now - SHOWN_MESSAGES_DAYS * 24 * 3600 * 1000;
  const older = messages.filter((message) => new Date(message.created_at).getTime() < since);
  const shownOlder = olderShown > 0 ? older.slice(-olderShown) : [];
  const hidden = older.length - shownOlder.length;
  return { visible: [...shownOlder, ...messages.filter((message) => new Date(message.created_at).getTime() >= since)], hidden };
}

/** The owner's page of an item: its menu, its QR code and the thread with every finder. */
export function OwnerView({ item }: { item: PublicItem }) {
  const { t } = useTranslation();
  const api = useApi();
  const queryClient = useQueryClient();
  // The unread count first: reading the thread marks the finders' messages read.
  const unread = useUnreadCount(item.code, true);
  // A finder who deleted their conversation: what the owner is told of them is asked again.
  const thread = useThread(item.code, null, !unread.isPending, undefined, () => void queryClient.invalidateQueries({ queryKey: messageKeys.finderDetails(item.code) }));
  const hasMessages = thread.messages.length > 0;
  useMarkLiveMessagesRead(item.code, thread.messages, thread.status === 'ready');
  const [olderShown, setOlderShown] = useState(0);
  const [modal, setModal] = useState<'reset' | 'back' | null>(null);
  const [sendError, setSendError] = useState<string | null>(null);
  // With several finders the owner picks whom to answer; by default the one who wrote last (ARCHITECTURE §8).
  const [chosenConversation, setChosenConversation] = useState<string | null>(null);
  const conversations = finderConversations(thread.messages);
  const replyTo = conversations.length > 1 ? (conversations.find(({ id }) => id === chosenConversation)?.id ?? latestFinderConversation(thread.messages)) : undefined;
  // The warning about a finder without an e-mail is about the finder the reply goes to.
  // Asked even without messages: a finder who left without the owner having replied leaves none, but a marker.
  const finder = useFinderDetails(item.code, replyTo, thread.status === 'ready');
  const finderLeft = finder.data?.finder_left === true;
  // Contact consent and the hand-over are of one conversation: the one picked among several, else the only one.
  const conversationId = replyTo ?? conversations[0]?.id;
  const { state, stale: conversationStale } = useConversation(item.code, null, conversationId, thread.status === 'ready' && conversationId !== undefined && !finderLeft, thread.messages);
  // Conversations a reply found closed (409 CONVERSATION_CLOSED): handed over meanwhile.
  const [closedOnReply, setClosedOnReply] = useState<readonly string[]>([]);
  const closed = Boolean(state?.closed_at) || (conversationId !== undefined && closedOnReply.includes(conversationId));
  const replyToId = useId();
  const { visible, hidden } = visibleMessages(thread.messages, olderShown);
  const title = item.name || t('found.ownerDefaultTitle');

  const reply = async (draft: MessageDraft): Promise<MessageDraft | null> => {
    setSendError(null);
    try {
      thread.add((await postMessage(api, item.code, draft.content, null, replyTo)).message);
      return null;
    } catch (error) {
      if (error instanceof ApiError && error.code === 'CONVERSATION_CLOSED' && conversationId) {
        setClosedOnReply((ids) => [...ids, conversationId]);
        conversationStale();
        return null;
      }
      setSendError(errorText(t, error));
      return draft;
    }
  };
  const afterReset = () => {
    thread.clear();
    setOlderShown(0);
    queryClient.setQueryData(messageKeys.unread(item.code), 0);
    void queryClient.invalidateQueries({ queryKey: messageKeys.finderDetails(item.code) });
  };

  return (
    <section className="page page--wide found found--owner">
      <PageTitle title={title} />
      <div className="page-heading">
        <h1>{title}</h1>
        <ItemMenu code={item.code} unread={unread.data ?? 0} hasMessages={hasMessages} onReset={() => setModal('reset')} onBack={() => setModal('back')} />
      </div>
      <div className="found__grid">
        <div className="found__thread">
          {thread.status === 'loading' && <p role="status">{t('common.loading')}</p>}
          {thread.status === 'error' && <FormError>{errorText(t, thread.error)}</FormError>}
          {thread.status === 'ready' && !hasMessages && !finderLeft && (
            <>
              <p className="intro">{t('found.noMessages')}</p>
              <p className="notice" role="note">
                {t('found.ownScanNotice')}
              </p>
            </>
          )}
          {hidden > 0 && (
            <button type="button" className="link-button" onClick={() => setOlderShown((shown) => shown + OLDER_MESSAGES_PER_CLICK)}>
              {t('found.showOlder')}
            </button>
          )}
          {visible.length > 0 && (
            <ol className="thread" aria-label={t('found.threadLabel')}>
              {visible.map((message) => (
                <MessageBubble key={message.id} message={message} viewer="owner" />
              ))}
            </ol>
          )}
          {finderLeft && (
            <p className="notice notice--warning" role="note">
              {t('found.finderLeft')}
            </p>
          )}
          {hasMessages && !finderLeft && !closed && finder.data?.finder_known === false && (
            <p className="notice notice--warning" role="note">
              {t('found.finderUnknown')}
            </p>
          )}
          {replyTo && (
            <div className="field">
              <label htmlFor={replyToId}>{t('found.replyTo')}</label>
              <select id={replyToId} value={replyTo} onChange={(event) => setChosenConversation(event.target.value)}>
                {conversations.map(({ id, number }) => (
                  <option key={id} value={id}>
                    {t('found.finderNumber', { number })}
                  </option>
                ))}
              </select>
            </div>
          )}
          {hasMessages && !finderLeft && closed && <ConversationClosed owner />}
          {hasMessages && !finderLeft && !closed && <MessageForm submitLabel={t('found.sendReply')} onSend={reply} error={sendError} />}
          {state && !finderLeft && !closed && (
            <ContactConsent code={item.code} viewer="owner" state={state} finderToken={null} conversationId={conversationId} onShared={thread.refresh} />
          )}
          {hasMessages && !finderLeft && !closed && <HandoverCodeCard code={item.code} />}
        </div>
        <aside className="found__qr">
          <QrImage code={item.code} size={200} />
        </aside>
      </div>
      {modal === 'reset' && <ResetModal code={item.code} onClose={() => setModal(null)} onReset={afterReset} />}
      {/* Once someone found the item: their next messages can then reach the owner at once. */}
      <PushOptIn target={{ kind: 'owner' }} offer={hasMessages} />
      {modal === 'back' && <ItemBackModal item={item} hasMessages={hasMessages} onClose={() => setModal(null)} onReset={() => setModal('reset')} />}
    </section>
  );
}

interface ItemMenuProps {
  code: string;
  unread: number;
  hasMessages: boolean;
  onReset(): void;
  onBack(): void;
}

/** Spec §2, item menu: the unread badge (only above 0), edit, view found page, and reset once there are messages. */
export function ItemMenu({ code, unread, hasMessages, onReset, onBack }: ItemMenuProps) {
  const { t } = useTranslation();
  return (
    <nav className="item-menu" aria-label={t('found.itemMenu')}>
      {unread > 0 && (
        <span className="badge" role="status" aria-label={t('found.unread', { count: unread })}>
          {unread}
        </span>
      )}
      <Link to={`/item/${code}`}>{t('found.edit')}</Link>
      <Link to={`/found/${code}`}>{t('found.viewFoundPage')}</Link>
      <Link to={`/item/${code}/print`}>{t('ownerQr.print')}</Link>
      <Link to={`/found/${code}/preview`}>{t('finderPreview.action')}</Link>
      {hasMessages && (
        <button type="button" className="button--secondary" onClick={onBack}>
          {t('found.itemBack')}
        </button>
      )}
      {hasMessages && (
        <button type="button" className="button--danger" onClick={onReset}>
          {t('found.reset')}
        </button>
      )}
    </nav>
  );
}
