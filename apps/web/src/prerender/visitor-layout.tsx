import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';

import { LanguageSelect } from '../components/language-selector';
import { LogoMark } from '../components/logo';

/**
 * The app's layout (app/main-layout.tsx) for a visitor who is not logged in, as plain markup for pages rendered
 * outside the app: found.html at build time and the finder page the gateway renders. The same markup as the app's,
 * so nothing moves when the app takes the page's place. The finder page's own entry (src/finder-main.tsx) renders it
 * too, with the working language list and flash bar in place of their markup.
 */
export function VisitorLayout({
  language,
  languageSelect,
  flashBar,
  children,
}: {
  language: string;
  languageSelect?: ReactNode;
  flashBar?: ReactNode;
  children: ReactNode;
}) {
  const { t } = useTranslation();
  return (
    <>
      <a className="skip-link" href="#main">
        {t('nav.skipToContent')}
      </a>
      <header className="site-header">
        <a href="/" className="logo">
          <LogoMark />
          <span>{t('common.productName')}</span>
        </a>
        <div className="site-header__actions">
          {languageSelect ?? <LanguageSelect id="language" defaultValue={language} />}
          <nav aria-label={t('nav.mainMenu')} className="main-nav">
            <ul>
              <li>
                <a href="/login">{t('nav.logIn')}</a>
              </li>
            </ul>
          </nav>
        </div>
      </header>
      {flashBar ?? <div className="flash-region" role="status" aria-live="polite" aria-label={t('flash.region')} />}
      <main id="main" className="site-main" tabIndex={-1}>
        {children}
      </main>
      <footer className="site-footer">
        <nav aria-label={t('common.productName')}>
          <ul>
            <li>
              <a href="/about">{t('nav.about')}</a>
            </li>
            <li>
              <a href="/rewards">{t('nav.rewards')}</a>
            </li>
            <li>
              <a href="/contact">{t('nav.contact')}</a>
            </li>
          </ul>
        </nav>
      </footer>
    </>
  );
}
