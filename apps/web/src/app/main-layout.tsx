import { useEffect, useRef, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, NavLink, useLocation, useNavigate } from 'react-router';

import { useLogout } from '../features/auth/api';
import { useSession } from '../lib/session';
import { useFlash } from '../lib/flash';
import { FlashBar } from '../components/flash/flash-bar';
import { LanguageSelector } from '../components/language-selector';
import { LogoMark } from '../components/logo';
import { SessionKeeper } from '../components/layouts/session-keeper';

/**
 * Another page replaces the one whose link or button had focus, which would leave focus on <body> (a keyboard or screen
 * reader user starts again from the top): it goes to the new page's content instead. Not on the first page (the
 * browser's own start), and never away from an open modal dialog.
 */
function useMainFocusOnNavigation() {
  const { pathname } = useLocation();
  const main = useRef<HTMLElement>(null);
  // The path last shown rather than a first-render flag: StrictMode runs effects twice on mount.
  const shownPath = useRef(pathname);
  useEffect(() => {
    if (shownPath.current === pathname) return;
    shownPath.current = pathname;
    if (document.activeElement?.closest('[aria-modal="true"]')) return;
    main.current?.focus();
  }, [pathname]);
  return main;
}

export function MainLayout({ children }: { children: ReactNode }) {
  const { t } = useTranslation();
  const { user } = useSession();
  const logout = useLogout();
  const flash = useFlash();
  const navigate = useNavigate();
  const main = useMainFocusOnNavigation();

  return (
    <>
      <a className="skip-link" href="#main">
        {t('nav.skipToContent')}
      </a>
      <SessionKeeper />
      <header className="site-header">
        <Link to="/" className="logo">
          <LogoMark />
          <span>{t('common.productName')}</span>
        </Link>
        <div className="site-header__actions">
          <LanguageSelector />
          <nav aria-label={t('nav.mainMenu')} className="main-nav">
            <ul>
              {user ? (
                <>
                  <li>
                    <NavLink to="/items">{t('nav.myItems')}</NavLink>
                  </li>
                  {/* The token's claim decides only what is shown: the gateway refuses a non-admin's calls itself. */}
                  {user.is_admin === true && (
                    <li>
                      <NavLink to="/admin/tag-batches">{t('nav.tagBatches')}</NavLink>
                    </li>
                  )}
                  <li>
                    <NavLink to="/account">{t('nav.account')}</NavLink>
                  </li>
                  <li>
                    <button
                      type="button"
                      className="link-button"
                      onClick={() =>
                        logout.mutate(undefined, {
                          onSettled: () => {
                            flash.show('success', 'flash.loggedOut');
                            void navigate('/');
                          },
                        })
                      }
                    >
                      {t('nav.logOut')}
                    </button>
                  </li>
                </>
              ) : (
                <li>
                  <NavLink to="/login">{t('nav.logIn')}</NavLink>
                </li>
              )}
            </ul>
          </nav>
        </div>
      </header>
      <FlashBar />
      <main ref={main} id="main" className="site-main" tabIndex={-1}>
        {children}
      </main>
      <footer className="site-footer">
        <nav aria-label={t('common.productName')}>
          <ul>
            <li>
              <Link to="/about">{t('nav.about')}</Link>
            </li>
            <li>
              <Link to="/rewards">{t('nav.rewards')}</Link>
            </li>
            <li>
              <Link to="/contact">{t('nav.contact')}</Link>
            </li>
          </ul>
        </nav>
      </footer>
    </>
  );
}
