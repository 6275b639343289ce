import { useTranslation } from 'react-i18next';
import type { Message } from '@homing/contracts';

import { formatRelativeTime } from '../../../lib/relative-time';
import { finderNumber } from '../conversations';

export type Viewer = 'owner' | 'finder';

/** One message: who wrote it, what (line by line), and how long ago; the reader's own messages on the right. */
export function MessageBubble({ message, viewer, now }: { message: Message; viewer: Viewer; now?: number }) {
  const { t, i18n } = useTranslation();
  const own = message.author === viewer;
  const number = finderNumber(message);
  const finder = number === undefined ? t('found.authorFinder') : t('found.finderNumber', { number });
  const author = own ? t('found.authorYou') : message.author === 'owner' ? t('found.authorOwner') : finder;
  return (
    <li className={`bubble${own ? ' bubble--own' : ''}`}>
      <p className="bubble__author">{author}</p>
      <div className="bubble__content">
        {message.content.split('\n').map((line, index) => (
          <p key={index}>{line}</p>
        ))}
      </div>
      <p className="bubble__time">
        <time dateTime={message.created_at}>{formatRelativeTime(message.created_at, i18n.resolvedLanguage ?? 'en', now)}</time>
      </p>
    </li>
  );
}
