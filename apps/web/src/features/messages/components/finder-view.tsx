import { useCallback, useRef, useState, type ReactNode } from 'react';
import type { TFunction } from 'i18next';
import { Trans, useTranslation } from 'react-i18next';
import type { HandoverResult, Message, PublicItem } from '@homing/contracts';

import { FormError } from '../../../components/form/form-error';
import { PageTitle } from '../../../components/page-title';
import { postMessage, setFinder } from '../api';
import { ContactConsent } from './contact-consent';
import { ConversationClosed, HandoverEntry, HandoverThanks, SafetyCard } from './handover';
import { ForgetConversationModal } from './item-modals';
import { storedFinderToken, storeFinderToken } from '../finder-token';
import { MessageBubble } from './message-bubble';
import { MessageForm, type FieldProblem, type MessageDraft, type RefusedDraft } from './message-form';
import { ResumeLinkRequest } from './resume-link-request';
import { ShareLocation } from './share-location';
import { takePrerenderedDraft, takePrerenderedFocus } from '../prerendered-draft';
import { useResumeLink, type ResumeAddress } from '../use-resume-link';
import { useConversation } from '../use-conversation';
import { useThread } from '../use-thread';
import { forgetFinderPush, PushOptIn } from '../../push';
import { useApi } from '../../../lib/api-context';
import { ApiError } from '../../../lib/api-transport';
import { errorText, validationErrors } from '../../../lib/error-catalogue';

/** The form's field a refusal names (spec §8: the server's validation map, by input name), the message's first. */
function fieldProblem(t: TFunction, error: unknown): FieldProblem | null {
  const { fields } = validationErrors(t, error, ['content', 'email']);
  if (fields.content) return { field: 'content', text: fields.content };
  if (fields.email) return { field: 'email', text: fields.email };
  return null;
}

/**
 * The finder's page: "you found someone's item", the first-message form, then their own conversation. Without a
 * finder token this browser has not written yet, and sees no earlier conversation (ARCHITECTURE §8). `resume` is the
 * page's address as the resume link reads it (the app's router, or the finder page's own entry's window).
 * `onItemChanged` has the page ask for `item` again (useRefreshPublicItem), as the finder changed it.
 */
export function FinderView({ item, resume: resumeAddress, onItemChanged }: { item: PublicItem; resume: ResumeAddress; onItemChanged(): void }) {
  const { t } = useTranslation();
  const api = useApi();
  const [finderToken, setFinderToken] = useState(() => storedFinderToken(item.code));
  // What the finder typed into the prerendered page, for the first form only: once that message is sent it is spent,
  // so a finder who later deletes their conversation gets an empty form, not their old message again.
  const [prerendered, setPrerendered] = useState(() => ({ draft: takePrerenderedDraft(), focus: takePrerenderedFocus() }));
  // The first message while it is being sent: shown at once, taken back if sending fails.
  const [pending, setPending] = useState<Message | null>(null);
  const [sendError, setSendError] = useState<string | null>(null);
  const [confirmingForget, setConfirmingForget] = useState(false);
  // The finder deleted their conversation here: the page is empty again, with a word that it happened.
  const [forgotten, setForgotten] = useState(false);
  // A conversation opened by set-finder whose first message then failed: the next try writes in it, not in a new one.
  const openedToken = useRef<string | null>(null);
  const keepToken = useCallback(
    (token: string | null) => {
      storeFinderToken(item.code, token);
      setFinderToken(token);
    },
    [item.code],
  );
  // A resume link from the finder's e-mail brings their conversation to this browser.
  const resume = useResumeLink(item.code, keepToken, resumeAddress);
  const resuming = resume.status === 'exchanging';
  // A token the server no longer takes: the owner reset the item, and this finder starts afresh.
  const thread = useThread(item.code, finderToken, finderToken !== null, () => keepToken(null));
  const messages = finderToken ? thread.messages : [];
  const shown = pending ? [...messages, pending] : messages;
  const { state, stale: conversationStale } = useConversation(item.code, finderToken, undefined, finderToken !== null && thread.status === 'ready', messages);
  // The case closed by this finder's code just now: their thank-you, and the reward now due.
  const [handedOver, setHandedOver] = useState<HandoverResult | null>(null);
  // A send or a code answered 409 CONVERSATION_CLOSED: the case was closed from another device meanwhile.
  const [closedMeanwhile, setClosedMeanwhile] = useState(false);
  const closed = finderToken !== null && (Boolean(state?.closed_at) || handedOver !== null || closedMeanwhile);

  const sendFirst = async (draft: MessageDraft): Promise<RefusedDraft | null> => {
    setSendError(null);
    setPending({ id: Number.MAX_SAFE_INTEGER, conversation_id: '', author: 'finder', content: draft.content, created_at: new Date().toISOString(), is_read: false, delivered_at: null, read_at: null, version: Number.MAX_SAFE_INTEGER });
    try {
      // Spec §4: the e-mail is saved first, then the message is written in the conversation it opened.
      let token = finderToken ?? openedToken.current;
      if (draft.email) token = openedToken.current = (await setFinder(api, item.code, draft.email, token)).finder_token;
      const { message, finder_token } = await postMessage(api, item.code, draft.content, token);
      token = finder_token ?? token;
      thread.add(message);
      setPending(null);
      setPrerendered({ draft: null, focus: null });
      openedToken.current = null;
      if (token !== finderToken) keepToken(token);
      return null;
    } catch (error) {
      setPending(null);
      const problem = fieldProblem(t, error);
      // A refusal of one of the form's fields shows at that field; anything else under the form.
      setSendError(problem ? null : errorText(t, error));
      return { ...draft, problem };
    }
  };
  const reply = async (draft: MessageDraft): Promise<RefusedDraft | null> => {
    setSendError(null);
    try {
      thread.add((await postMessage(api, item.code, draft.content, finderToken)).message);
      return null;
    } catch (error) {
      if (error instanceof ApiError && error.code === 'CONVERSATION_CLOSED') {
        setClosedMeanwhile(true);
        conversationStale();
        return null;
      }
      const problem = fieldProblem(t, error);
      setSendError(problem ? null : errorText(t, error));
      return { ...draft, problem };
    }
  };
  const afterHandover = (result: HandoverResult) => {
    setHandedOver(result);
    conversationStale();
    // The owner has the item back: no more lost banner.
    onItemChanged();
  };

  const afterForget = () => {
    // The server dropped the conversation's push subscriptions with it.
    forgetFinderPush(item.code);
    setConfirmingForget(false);
    thread.clear();
    openedToken.current = null;
    keepToken(null);
    setHandedOver(null);
    setClosedMeanwhile(false);
    setForgotten(true);
  };

  const hasThread = shown.length > 0;
  return (
    <FinderIntro
      item={item}
      photo={<FinderPhoto item={item} />}
      withIntro={!hasThread}
    >
      <PageTitle title={t('found.finderTitle')} />
      {forgotten && !finderToken && (
        <p className="notice" role="status">
          {t('found.forgotten')}
        </p>
      )}
      {thread.status === 'error' && finderToken && <FormError>{errorText(t, thread.error)}</FormError>}
      {hasThread && <FinderThread messages={shown} />}
      {resume.status === 'expired' && !finderToken && <FormError>{t('resumeLink.expired')}</FormError>}
      {resume.status === 'failed' && <FormError>{errorText(t, resume.error)}</FormError>}
      {((finderToken && thread.status === 'loading') || resuming) && <p role="status">{t('common.loading')}</p>}
      {handedOver && <HandoverThanks result={handedOver} />}
      {closed && <ConversationClosed />}
      {!closed && !resuming && (!finderToken || thread.status !== 'loading') && (
        <MessageForm
          // A new form once the first message is in: the reply form has no e-mail field.
          key={finderToken ? 'reply' : 'first'}
          withEmail={!finderToken}
          // What the finder typed into the prerendered page before the app took over.
          initial={finderToken ? null : prerendered.draft}
          focusField={finderToken ? null : prerendered.focus}
          submitLabel={finderToken ? t('found.sendReply') : t('found.sendFirst')}
          onSend={finderToken ? reply : sendFirst}
          error={sendError}
        />
      )}
      {/* Once the finder has a conversation: the place is an entry of it. */}
      {finderToken && thread.status === 'ready' && !closed && <ShareLocation code={item.code} finderToken={finderToken} onShared={thread.add} />}
      {finderToken && state && !closed && (
        <ContactConsent code={item.code} viewer="finder" state={state} finderToken={finderToken} onShared={thread.refresh} />
      )}
      {finderToken && state && !closed && (
        <HandoverEntry code={item.code} finderToken={finderToken} onHandedOver={afterHandover} onClosed={() => setClosedMeanwhile(true)} />
      )}
      {/* Before the first message too: a finder may be about to meet a stranger. */}
      {!finderToken && !resuming && <SafetyCard />}
      {finderToken && thread.status === 'ready' && (
        <p>
          <button type="button" className="button--danger" onClick={() => setConfirmingForget(true)}>
            {t('found.forgetAction')}
          </button>
        </p>
      )}
      {confirmingForget && finderToken && (
        <ForgetConversationModal code={item.code} finderToken={finderToken} onClose={() => setConfirmingForget(false)} onForgotten={afterForget} />
      )}
      {!finderToken && !resuming && <ResumeLinkRequest code={item.code} open={resume.status === 'expired'} />}
      {/* Once the finder has written: the owner's reply can then reach them. */}
      <PushOptIn target={finderToken ? { kind: 'finder', code: item.code, finderToken } : null} offer={finderToken !== null} />
    </FinderIntro>
  );
}

/** The finder's own conversation, oldest first; also rendered by the server for a finder without script. */
export function FinderThread({ messages, now }: { messages: readonly Message[]; now?: number }) {
  const { t } = useTranslation();
  return (
    <ol className="thread" aria-label={t('found.threadLabel')}>
      {messages.map((message) => (
        <MessageBubble key={message.id} message={message} viewer="finder" now={now} />
      ))}
    </ol>
  );
}

/** The item's photo as the finder page shows it, if it has one. */
export function FinderPhoto({ item }: { item: PublicItem }) {
  const { t } = useTranslation();
  return item.photo ? <img className="found__photo" src={item.photo.normal} alt={t('found.photoAlt')} width={400} height={400} /> : null;
}

/**
 * What every finder sees first: the title, the item's photo, the intro, then the rest of the page. Also rendered at
 * build time into found.html (src/prerender/finder-shell.tsx), with the first-message form, and by the gateway for a
 * finder without script (src/prerender/finder-page.server.tsx).
 */
export function FinderIntro({ item, photo, withIntro = true, children }: { item?: PublicItem; photo?: ReactNode; withIntro?: boolean; children: ReactNode }) {
  const { t } = useTranslation();
  return (
    <section className="page found">
      <h1>{t('found.finderTitle')}</h1>
      {item?.lost && <LostBanner note={item.lost_note} />}
      {photo}
      {withIntro && <p className="intro">{t('found.finderIntro')}</p>}
      {children}
      {item?.relay_address && <RelayAddress address={item.relay_address} />}
    </section>
  );
}

/** Lost mode: the owner is looking for it, in their own words when they left a note (plain text, line breaks kept). */
function LostBanner({ note }: { note?: string }) {
  const { t } = useTranslation();
  return (
    <div className="found__lost" role="note">
      <p className="found__lost-title">{t('found.lostBanner')}</p>
      {note && <p className="found__lost-note">{note}</p>}
    </div>
  );
}

/** For a finder who would rather write from their mailbox: the tag's address at the e-mail relay. */
function RelayAddress({ address }: { address: string }) {
  return (
    <p className="found__relay">
      <Trans i18nKey="found.relayAddress" values={{ address }} components={{ mail: <a href={`mailto:${address}`} /> }} />
    </p>
  );
}
