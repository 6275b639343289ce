import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useLocation } from 'react-router';

import { useSession } from '../lib/session';
import { PageTitle } from './page-title';

/** The not-logged-in view in place of a page that needs a login. */
export function NotLoggedIn() {
  const { t } = useTranslation();
  return (
    <section className="page">
      <PageTitle title={t('notLoggedIn.title')} />
      <h1>{t('notLoggedIn.title')}</h1>
      <p>{t('notLoggedIn.text')}</p>
      <p>
        <Link className="button" to="/login">
          {t('nav.logIn')}
        </Link>
      </p>
    </section>
  );
}

export function RequireLogin({ children }: { children: ReactNode }) {
  const { user } = useSession();
  // Keyed by path, so a page left and entered again starts from a fresh form.
  const { pathname } = useLocation();
  return user ? <div key={pathname}>{children}</div> : <NotLoggedIn />;
}
