import i18next from 'i18next';
import { renderToString } from 'react-dom/server';
import { I18nextProvider, initReactI18next, useTranslation } from 'react-i18next';

import { FinderIntro } from '../features/messages/components/finder-view';
import { SafetyCard } from '../features/messages/components/handover';
import { MessageForm } from '../features/messages/components/message-form';
import { allResources } from '../i18n/all-resources';
import { VisitorLayout } from './visitor-layout';

// Rendered at build time (vite.config.mts) into found.html, which nginx (and the gateway without the server-rendered
// finder page, finder-page.server.tsx) answers for /found/*: a stranger's phone on a weak connection shows what it is
// and lets them start writing before the app's code arrives. In English, the language of a visitor we know nothing
// about yet; the app takes over in theirs.

function FinderShell() {
  const { t } = useTranslation();
  return (
    <VisitorLayout language="en">
      <FinderIntro>
        <MessageForm withEmail submitLabel={t('found.sendFirst')} onSend={async () => null} />
        {/* The app's safety card and folded "already wrote?" request, in place so nothing below moves. */}
        <SafetyCard />
        <details className="resume-link">
          <summary>{t('resumeLink.summary')}</summary>
        </details>
      </FinderIntro>
      {/* The owner's log-in link needs the tag's code, which only the app knows: its place, kept empty. */}
      <p className="owner-login" aria-hidden="true">
        <a tabIndex={-1}>&nbsp;</a>
      </p>
    </VisitorLayout>
  );
}

/** The finder page's markup, to go inside `<div id="root">`. */
export async function renderFinderShell(): Promise<string> {
  const i18n = i18next.createInstance();
  await i18n.use(initReactI18next).init({ resources: allResources, lng: 'en', fallbackLng: 'en', initAsync: false, interpolation: { escapeValue: false } });
  const html = renderToString(
    <I18nextProvider i18n={i18n}>
      <FinderShell />
    </I18nextProvider>,
  );
  // Sending needs the app: until it has loaded the button waits (the page's policy allows no inline script).
  return html.replace('<button type="submit">', '<button type="submit" disabled="">');
}
