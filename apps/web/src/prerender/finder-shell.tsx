import i18next from 'i18next';
import { renderToString } from 'react-dom/server';
import { I18nextProvider, initReactI18next } from 'react-i18next';

import { FinderIntro } from '../app/routes/found/finder-view';
import { LogoMark } from '../components/logo';
import { MessageForm } from '../features/messages/components/message-form';
import { resources } from '../i18n/resources';

// Rendered at build time (vite.config.mts) into found.html, which the gateway and nginx answer for /found/*: a
// stranger's phone on a weak connection shows what it is and lets them start writing before the app's code arrives.
// In English, the language of a visitor we know nothing about yet; the app takes over in theirs.

function FinderShell() {
  return (
    <>
      <header className="site-header">
        <a href="/" className="logo">
          <LogoMark />
          <span>Homing</span>
        </a>
      </header>
      <main id="main" className="site-main" tabIndex={-1}>
        <FinderIntro>
          <MessageForm withEmail submitLabel={resources.en.translation.found.sendFirst} onSend={async () => null} />
        </FinderIntro>
      </main>
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
