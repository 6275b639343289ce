import i18next from 'i18next';
import { renderToString } from 'react-dom/server';
import { I18nextProvider, initReactI18next, useTranslation } from 'react-i18next';

import { FinderIntro } from '../features/messages/components/finder-view';
import { LanguageSelect } from '../components/language-selector';
import { LogoMark } from '../components/logo';
import { MessageForm } from '../features/messages/components/message-form';
import { resources } from '../i18n/resources';

// Rendered at build time (vite.config.mts) into found.html, which the gateway and nginx answer for /found/*: a
// stranger's phone on a weak connection shows what it is and lets them start writing before the app's code arrives.
// In English, the language of a visitor we know nothing about yet; the app takes over in theirs.

// The same markup as the app's layout (app/main-layout.tsx) for a visitor who is not logged in, so
// nothing moves when the app takes its place.
function FinderShell() {
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
          <LanguageSelect id="language" defaultValue="en" />
          <nav aria-label={t('nav.mainMenu')} className="main-nav">
            <ul>
              <li>
                <a href="/login">{t('nav.logIn')}</a>
              </li>
            </ul>
          </nav>
        </div>
      </header>
      <div className="flash-region" role="status" aria-live="polite" aria-label={t('flash.region')} />
      <main id="main" className="site-main" tabIndex={-1}>
        <FinderIntro>
          <MessageForm withEmail submitLabel={t('found.sendFirst')} onSend={async () => null} />
          {/* The app's folded "already wrote?" request, in place so nothing below moves. */}
          <details className="resume-link">
            <summary>{t('resumeLink.summary')}</summary>
          </details>
        </FinderIntro>
        {/* The owner's log-in link needs the tag's code, which only the app knows: its place, kept empty. */}
        <p className="owner-login" aria-hidden="true">
          <a tabIndex={-1}>&nbsp;</a>
        </p>
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

/** The finder page's markup, to go inside `<div id="root">`. */
export async function renderFinderShell(): Promise<string> {
  const i18n = i18next.createInstance();
  await i18n.use(initReactI18next).init({ resources, lng: 'en', fallbackLng: 'en', initAsync: false, interpolation: { escapeValue: false } });
  const html = renderToString(
    <I18nextProvider i18n={i18n}>
      <FinderShell />
    </I18nextProvider>,
  );
  // Sending needs the app: until it has loaded the button waits (the page's policy allows no inline script).
  return html.replace('<button type="submit">', '<button type="submit" disabled="">');
}
