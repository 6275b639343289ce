import { useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { Message, PublicItem } from '@homing/contracts';

import { FormError } from '../../../components/form/form-field';
import { PageTitle } from '../../../components/page-title';
import { postMessage, setFinder } from '../../../features/messages/api';
import { storedFinderToken, storeFinderToken } from '../../../features/messages/finder-token';
import { MessageBubble } from '../../../features/messages/components/message-bubble';
import { MessageForm, type MessageDraft } from '../../../features/messages/components/message-form';
import { useThread } from '../../../features/messages/use-thread';
import { useApi } from '../../../lib/api-context';
import { errorText } from '../../../lib/error-catalogue';

/**
 * The finder's page: "you found someone's item", the first-message form, then their own conversation. Without a
 * finder token this browser has not written yet, and sees no earlier conversation (ARCHITECTURE §8).
 */
export function FinderView({ item }: { item: PublicItem }) {
  const { t } = useTranslation();
  const api = useApi();
  const [finderToken, setFinderToken] = useState(() => storedFinderToken(item.code));
  // The first message while it is being sent: shown at once, taken back if sending fails.
  const [pending, setPending] = useState<Message | null>(null);
  const [sendError, setSendError] = useState<string | null>(null);
  // A conversation opened by set-finder whose first message then failed: the next try writes in it, not in a new one.
  const openedToken = useRef<string | null>(null);
  const keepToken = (token: string | null) => {
    storeFinderToken(item.code, token);
    setFinderToken(token);
  };
  // A token the server no longer takes: the owner reset the item, and this finder starts afresh.
  const thread = useThread(item.code, finderToken, finderToken !== null, () => keepToken(null));
  const messages = finderToken ? thread.messages : [];
  const shown = pending ? [...messages, pending] : messages;

  const sendFirst = async (draft: MessageDraft): Promise<MessageDraft | null> => {
    setSendError(null);
    setPending({ id: Number.MAX_SAFE_INTEGER, conversation_id: '', author: 'finder', content: draft.content, created_at: new Date().toISOString(), is_read: false });
    try {
      // Spec §4: the e-mail is saved first, then the message is written in the conversation it opened.
      let token = finderToken ?? openedToken.current;
      if (draft.email) token = openedToken.current = (await setFinder(api, item.code, draft.email, token)).finder_token;
      const { message, finder_token } = await postMessage(api, item.code, draft.content, token);
      token = finder_token ?? token;
      thread.add(message);
      setPending(null);
      openedToken.current = null;
      if (token !== finderToken) keepToken(token);
      return null;
    } catch (error) {
      setPending(null);
      setSendError(errorText(t, error));
      return draft;
    }
  };
  const reply = async (draft: MessageDraft): Promise<MessageDraft | null> => {
    setSendError(null);
    try {
      thread.add((await postMessage(api, item.code, draft.content, finderToken)).message);
      return null;
    } catch (error) {
      setSendError(errorText(t, error));
      return draft;
    }
  };

  const hasThread = shown.length > 0;
  return (
    <section className="page found">
      <PageTitle title={t('found.finderTitle')} />
      <h1>{t('found.finderTitle')}</h1>
      {item.photo && <img className="found__photo" src={item.photo.normal} alt={t('found.photoAlt')} width={400} height={400} />}
      {!hasThread && <p className="intro">{t('found.finderIntro')}</p>}
      {thread.status === 'error' && finderToken && <FormError>{errorText(t, thread.error)}</FormError>}
      {hasThread && (
        <ol className="thread" aria-label={t('found.threadLabel')}>
          {shown.map((message) => (
            <MessageBubble key={message.id} message={message} viewer="finder" />
          ))}
        </ol>
      )}
      {finderToken && thread.status === 'loading' && <p role="status">{t('common.loading')}</p>}
      {(!finderToken || thread.status !== 'loading') && (
        <MessageForm
          // A new form once the first message is in: the reply form has no e-mail field.
          key={finderToken ? 'reply' : 'first'}
          withEmail={!finderToken}
          submitLabel={finderToken ? t('found.sendReply') : t('found.sendFirst')}
          onSend={finderToken ? reply : sendFirst}
          error={sendError}
        />
      )}
    </section>
  );
}
