import { useTranslation } from 'react-i18next';
import { mapLinkOf, type ContactKind, type Message, type SharedLocation } from '@homing/contracts';

import { formatRelativeTime } from '../../../lib/relative-time';
import { finderNumber } from '../conversations';
import { placeText } from '../shared-place';

export type Viewer = 'owner' | 'finder';

/**
 * What the reader learns of their own message: a finder sees "delivered" (the owner was notified) and then "read"
 * (the owner opened the thread); the owner sees "read" on a reply the finder opened.
 */
export function receiptOf(message: Pick<Message, 'delivered_at' | 'read_at'>, viewer: Viewer): 'read' | 'delivered' | null {
  if (message.read_at) return 'read';
  if (viewer === 'finder' && message.delivered_at) return 'delivered';
  return null;
}

/**
 * One message: who wrote it, what (line by line, or the place a finder shared), how long ago, and for the reader's own
 * messages whether they were delivered or read; the reader's own messages on the right.
 */
export function MessageBubble({ message, viewer, now }: { message: Message; viewer: Viewer; now?: number }) {
  const { t, i18n } = useTranslation();
  const own = message.author === viewer;
  const number = finderNumber(message);
  const finder = number === undefined ? t('found.authorFinder') : t('found.finderNumber', { number });
  const receipt = own ? receiptOf(message, viewer) : null;
  const author = own ? t('found.authorYou') : message.author === 'owner' ? t('found.authorOwner') : finder;
  return (
    <li className={`bubble${own ? ' bubble--own' : ''}`}>
      <p className="bubble__author">{author}</p>
      {message.location ? (
        <SharedPlace location={message.location} />
      ) : (
        <div className="bubble__content">
          {message.content.split('\n').map((line, index) => (
            <p key={index}>{line}</p>
          ))}
        </div>
      )}
      {message.masked && message.masked.length > 0 && <MaskedNote kinds={message.masked} />}
      <p className="bubble__time">
        <time dateTime={message.created_at}>{formatRelativeTime(message.created_at, i18n.resolvedLanguage ?? 'en', now)}</time>
      </p>
      {receipt && <p className="bubble__receipt">{t(`receipts.${receipt}`)}</p>}
    </li>
  );
}

/** What the server hid in the text for this reader, and why: until both sides agree to share contact details. */
function MaskedNote({ kinds }: { kinds: readonly ContactKind[] }) {
  const { t, i18n } = useTranslation();
  // "a phone number and an IBAN": a list in the reader's language, each kind named once.
  const list = new Intl.ListFormat(i18n.resolvedLanguage ?? 'en', { type: 'conjunction' }).format([...new Set(kinds)].map((kind) => t(`handover.kinds.${kind}`)));
  return <p className="bubble__masked">{t('handover.maskedNote', { kinds: list })}</p>;
}

/** A place the finder shared: in words, and a link to it on a map (a link the reader follows: no map script on our page). */
function SharedPlace({ location }: { location: SharedLocation }) {
  const { t, i18n } = useTranslation();
  return (
    <div className="bubble__content bubble__place">
      <p>{t('shareLocation.shared', { place: placeText(t, location, i18n.resolvedLanguage ?? 'en') })}</p>
      <p>
        <a href={mapLinkOf(location)} target="_blank" rel="noopener noreferrer">
          {t('shareLocation.openMap')}
        </a>
      </p>
    </div>
  );
}
