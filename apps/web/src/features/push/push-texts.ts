import en from '../../i18n/locales/en.json';
import es from '../../i18n/locales/es.json';
import nl from '../../i18n/locales/nl.json';

const push = { en: en.push, nl: nl.push, es: es.push };

export interface PushWording {
  title: string;
  body: string;
}

/** A push's words in a language we offer (`nl-BE` counts as `nl`), else English: the service worker shows them. */
export function pushTexts(language: string): { language: string; fromFinder: PushWording; fromOwner: PushWording; scanAlert(city: string | null): PushWording } {
  const base = language.trim().toLowerCase().split(/[-_]/)[0];
  const chosen = base === 'nl' || base === 'es' ? base : 'en';
  const texts = push[chosen];
  return {
    language: chosen,
    fromFinder: { title: texts.fromFinderTitle, body: texts.fromFinderBody },
    fromOwner: { title: texts.fromOwnerTitle, body: texts.fromOwnerBody },
    // The worker has no i18next: the one placeholder is filled here.
    scanAlert: (city) => ({ title: texts.scanAlertTitle, body: city ? texts.scanAlertBodyNear.replace('{{city}}', city) : texts.scanAlertBody }),
  };
}
