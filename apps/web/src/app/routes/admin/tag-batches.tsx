import { useTranslation } from 'react-i18next';

import { PageTitle } from '../../../components/page-title';
import { RequireLogin } from '../../../components/require-login';
import { MintBatchForm, TagBatchList } from '../../../features/admin';
import { useSession } from '../../../lib/session';
import { NotFoundPage } from '../not-found';

/** `/admin/tag-batches`: admins mint tags in batches and download what prints them. */
export function TagBatchesPage() {
  return (
    <RequireLogin>
      <AdminOnly />
    </RequireLogin>
  );
}

// Anyone else meets the page that is not there: the screen does not tell a non-admin it exists.
function AdminOnly() {
  const { user } = useSession();
  return user?.is_admin === true ? <TagBatches /> : <NotFoundPage />;
}

function TagBatches() {
  const { t } = useTranslation();
  return (
    <section className="page page--wide admin-batches">
      <PageTitle title={t('admin.title')} />
      <h1>{t('admin.title')}</h1>
      <p className="intro">{t('admin.intro')}</p>
      <div className="admin-batches__grid">
        <MintBatchForm />
        <TagBatchList />
      </div>
    </section>
  );
}

export { TagBatchesPage as Component };
