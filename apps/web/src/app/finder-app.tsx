import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';

import { FlashBar } from '../components/flash/flash-bar';
import { FormError } from '../components/form/form-error';
import { LanguageSelector } from '../components/language-selector';
import { usePublicItem, useRefreshPublicItem } from '../features/items/public-item';
import { useRecordScan } from '../features/items/use-record-scan';
import { FinderView } from '../features/messages/components/finder-view';
import { serverRenderedItem } from '../features/messages/server-rendered-item';
import { windowResumeAddress } from '../features/messages/use-resume-link';
import { isNotFound } from '../lib/api-transport';
import { errorText } from '../lib/error-catalogue';
import { VisitorLayout } from '../prerender/visitor-layout';

/**
 * The finder page as its own entry shows it (src/finder-main.tsx): what the app's `/found/{code}` shows a visitor
 * who is not logged in (app/routes/found/found.tsx), in the app's layout for visitors, without the app's router. It
 * starts from the item the gateway rendered the page with. Links are plain ones: the rest of the app loads with the
 * page a visitor goes on to.
 */
export function FinderApp({ code, reload = () => window.location.reload() }: { code: string; reload?: () => void }) {
  const { t, i18n } = useTranslation();
  // The item the gateway's page was rendered with, shown at once and asked for again in the background.
  const item = usePublicItem(code, serverRenderedItem(code));
  const refreshItem = useRefreshPublicItem(code);
  const finderSees = item.data !== undefined && item.data.activated && !item.data.is_owner;
  // A scan is someone opening the finder page of an activated tag.
  useRecordScan(code, finderSees);
  // Gone meanwhile, or no longer a finder's page (not activated, or this browser's own item): the gateway renders the
  // page as it now is, and the app takes that over.
  const renderedAgain = isNotFound(item.error) || (item.data !== undefined && !finderSees);
  useEffect(() => {
    if (renderedAgain) reload();
  }, [renderedAgain, reload]);
  const [resume] = useState(windowResumeAddress);

  let page = null;
  if (item.isError && !isNotFound(item.error)) page = <FormError>{errorText(t, item.error)}</FormError>;
  else if (finderSees)
    page = (
      <>
        {/* Keyed by code, as the app's: another tag's page starts from a fresh thread. */}
        <FinderView key={code} item={item.data} resume={resume} onItemChanged={refreshItem} />
        <p className="owner-login">
          <a href={`/login?c=${encodeURIComponent(code)}`}>{t('ownerLogin.link')}</a>
        </p>
      </>
    );
  return (
    <VisitorLayout language={i18n.resolvedLanguage ?? 'en'} languageSelect={<LanguageSelector />} flashBar={<FlashBar />}>
      {page}
    </VisitorLayout>
  );
}
