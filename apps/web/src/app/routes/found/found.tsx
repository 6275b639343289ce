import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, Navigate, useParams } from 'react-router';

import { FormError } from '../../../components/form/form-field';
import { PageTitle } from '../../../components/page-title';
import { usePublicItem } from '../../../features/messages/api';
import { MessageForm } from '../../../features/messages/components/message-form';
import { openedPrerendered, peekPrerenderedDraft, peekPrerenderedFocus, rememberDraft, rememberFocus } from '../../../features/messages/prerendered-draft';
import { ApiError } from '../../../lib/api-client';
import { errorText } from '../../../lib/error-catalogue';
import { FinderIntro, FinderView } from './finder-view';
import { OwnerView } from './owner-view';

/** `/found/{code}`: what a finder sees after scanning a tag, and the owner's thread about the item. */
export function FoundPage() {
  const { t } = useTranslation();
  const { code = '' } = useParams();
  const item = usePublicItem(code);

  if (item.isPending) return openedPrerendered() ? <PrerenderedLoading /> : <p role="status">{t('found.loading')}</p>;
  if (item.error instanceof ApiError && item.error.status === 404) return <FoundNotFound code={code} />;
  if (item.isError) return <FormError>{errorText(t, item.error)}</FormError>;
  if (!item.data.activated) return <Navigate to={`/activate/${encodeURIComponent(code)}`} replace />;
  // Keyed by code: another tag's page starts from a fresh thread.
  return item.data.is_owner ? <OwnerView key={code} item={item.data} /> : <FinderView key={code} item={item.data} />;
}

/**
 * While the item loads on a page that opened prerendered: the same finder page (most who open it are finders), so
 * nothing moves, the form taking text but not sending yet, and the loading text for screen readers.
 */
function PrerenderedLoading() {
  const { t } = useTranslation();
  const [initial] = useState(peekPrerenderedDraft);
  const [focusField] = useState(peekPrerenderedFocus);
  return (
    <FinderIntro>
      <p role="status" className="visually-hidden">
        {t('found.loading')}
      </p>
      {/* Where the finder is typing, for the form that follows (a blur towards nothing keeps the last input). */}
      <div onFocus={(event) => rememberFocus(event.target)} onBlur={(event) => event.relatedTarget && rememberFocus(event.relatedTarget)}>
        <MessageForm
          withEmail
          disabled
          initial={initial}
          focusField={focusField}
          submitLabel={t('found.sendFirst')}
          onSend={async () => null}
          onDraftChange={rememberDraft}
        />
      </div>
    </FinderIntro>
  );
}

function FoundNotFound({ code }: { code: string }) {
  const { t } = useTranslation();
  return (
    <section className="page">
      <PageTitle title={t('itemForm.notFoundTitle')} />
      <h1>{t('itemForm.notFoundTitle')}</h1>
      <p>{t('itemForm.notFoundText', { code })}</p>
      <p>
        <Link to="/contact">{t('common.contactUs')}</Link>
      </p>
    </section>
  );
}

export { FoundPage as Component };
