import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, NavLink } from 'react-router';

import { LanguageSelector } from '../language-selector';
import { LogoMark } from '../logo';

export function MainLayout({ children }: { children: ReactNode }) {
  const { t } = useTranslation();

  return (
    <>
      <a className="skip-link" href="#main">
        {t('nav.skipToContent')}
      </a>
      <header className="site-header">
        <Link to="/" className="logo">
          <LogoMark />
          <span>{t('common.productName')}</span>
        </Link>
        <div className="site-header__actions">
          <LanguageSelector />
          <nav aria-label={t('nav.mainMenu')} className="main-nav">
            <ul>
              <li>
                <NavLink to="/login">{t('nav.logIn')}</NavLink>
              </li>
            </ul>
          </nav>
        </div>
      </header>
      <main id="main" className="site-main" tabIndex={-1}>
        {children}
      </main>
    </>
  );
}
