import { useTranslation } from 'react-i18next';
import { Link, Navigate, useParams } from 'react-router';

import { FormError } from '../../../components/form/form-error';
import { PageTitle } from '../../../components/page-title';
import { RequireLogin } from '../../../components/require-login';
import { usePublicItem } from '../../../features/items/public-item';
import { ItemNotFound } from '../../../features/items/components/item-not-found';
import { FinderIntro } from '../../../features/messages/components/finder-view';
import { MessageForm } from '../../../features/messages/components/message-form';
import { isNotFound } from '../../../lib/api-transport';
import { errorText } from '../../../lib/error-catalogue';

/**
 * `/found/{code}/preview`: the owner sees their item's page as a finder first does (title, photo, intro, the
 * first-message form), read-only: the form is disabled and nothing is sent or stored, no finder token is read or kept.
 */
export function FinderPreviewPage() {
  return (
    <RequireLogin>
      <FinderPreview />
    </RequireLogin>
  );
}

function FinderPreview() {
  const { t } = useTranslation();
  const { code = '' } = useParams();
  const item = usePublicItem(code);

  if (item.isPending) return <p role="status">{t('common.loading')}</p>;
  if (isNotFound(item.error)) return <ItemNotFound code={code} />;
  if (item.isError) return <FormError>{errorText(t, item.error)}</FormError>;
  // Only the owner previews; anyone else is a finder and gets the real page.
  if (!item.data.is_owner) return <Navigate to={`/found/${encodeURIComponent(code)}`} replace />;

  return (
    <>
      <PageTitle title={t('finderPreview.title')} />
      <div className="page preview-banner" role="note">
        <p>{t('finderPreview.notice')}</p>
        <Link className="button button--secondary" to={`/found/${encodeURIComponent(code)}`}>
          {t('finderPreview.back')}
        </Link>
      </div>
      <FinderIntro item={item.data} photo={item.data.photo && <img className="found__photo" src={item.data.photo.normal} alt={t('found.photoAlt')} width={400} height={400} />}>
        <fieldset className="preview-form" disabled aria-describedby="finder-preview-form-note">
          <legend className="visually-hidden">{t('finderPreview.formLegend')}</legend>
          <p id="finder-preview-form-note" className="muted">
            {t('finderPreview.formNote')}
          </p>
          <MessageForm withEmail disabled submitLabel={t('found.sendFirst')} onSend={async (draft) => draft} />
        </fieldset>
      </FinderIntro>
    </>
  );
}

export { FinderPreviewPage as Component };
