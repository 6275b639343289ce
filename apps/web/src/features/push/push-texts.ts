import { allResources } from '../../i18n/all-resources';
import { defaultLanguage, isSupportedLanguage } from '../../i18n/languages';

export interface PushWording {
  title: string;
  body: string;
}

/** A push's words in a language we offer (`nl-BE` counts as `nl`), else English: the service worker shows them. */
export function pushTexts(language: string): { language: string; fromFinder: PushWording; fromOwner: PushWording; scanAlert(city: string | null): PushWording } {
  const base = language.trim().toLowerCase().split(/[-_]/)[0];
  const chosen = isSupportedLanguage(base) ? base : defaultLanguage;
  const texts = allResources[chosen].translation.push;
  return {
    language: chosen,
    fromFinder: { title: texts.fromFinderTitle, body: texts.fromFinderBody },
    fromOwner: { title: texts.fromOwnerTitle, body: texts.fromOwnerBody },
    // The worker has no i18next: the one placeholder is filled here.
    scanAlert: (city) => ({ title: texts.scanAlertTitle, body: city ? texts.scanAlertBodyNear.replace('{{city}}', city) : texts.scanAlertBody }),
  };
}
