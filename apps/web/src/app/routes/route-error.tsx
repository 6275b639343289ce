import { useTranslation } from 'react-i18next';
import { isRouteErrorResponse, Link, useRouteError } from 'react-router';

import { ChunkLoadError } from '../../lib/load-chunk';
import { NotFoundPage } from './not-found';

/** Shown in place of a page that failed to load or render; the navigation around it stays. */
export function RouteError() {
  const error = useRouteError();
  const { t } = useTranslation();

  // A loader can throw data(null, { status: 404 }) for a record that does not exist.
  if (isRouteErrorResponse(error) && error.status === 404) return <NotFoundPage />;

  return (
    <section className="page" role="alert">
      <h1>{t('errors.generic')}</h1>
      {error instanceof ChunkLoadError && <p>{t('errors.chunkFailed')}</p>}
      <p className="actions">
        <button type="button" onClick={() => window.location.reload()}>
          {t('errors.reload')}
        </button>
        <Link to="/">{t('common.backToHome')}</Link>
      </p>
    </section>
  );
}

/** Last resort when the layout itself fails: the same message without the navigation. */
export function RootRouteError() {
  return (
    <main id="main" className="site-main">
      <RouteError />
    </main>
  );
}
