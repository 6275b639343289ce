import { useTranslation } from 'react-i18next';
import { Link, Navigate, useParams } from 'react-router';

import { FormError } from '../../../components/form/form-field';
import { PageTitle } from '../../../components/page-title';
import { usePublicItem } from '../../../features/messages/api';
import { ApiError } from '../../../lib/api-client';
import { errorText } from '../../../lib/error-catalogue';
import { FinderView } from './finder-view';
import { OwnerView } from './owner-view';

/** `/found/{code}`: what a finder sees after scanning a tag, and the owner's thread about the item. */
export function FoundPage() {
  const { t } = useTranslation();
  const { code = '' } = useParams();
  const item = usePublicItem(code);

  if (item.isPending) return <p role="status">{t('found.loading')}</p>;
  if (item.error instanceof ApiError && item.error.status === 404) return <FoundNotFound code={code} />;
  if (item.isError) return <FormError>{errorText(t, item.error)}</FormError>;
  if (!item.data.activated) return <Navigate to={`/activate/${encodeURIComponent(code)}`} replace />;
  // Keyed by code: another tag's page starts from a fresh thread.
  return item.data.is_owner ? <OwnerView key={code} item={item.data} /> : <FinderView key={code} item={item.data} />;
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
