import i18next, { type i18n as I18n, type TFunction } from 'i18next';
import { renderToString } from 'react-dom/server';
import { I18nextProvider, initReactI18next, useTranslation } from 'react-i18next';
import { MemoryRouter } from 'react-router';
import type { Message, PublicItem, ValidationMap } from '@homing/contracts';

import { FormError } from '../components/form/form-error';
import { ItemNotFound } from '../features/items/components/item-not-found';
import { FinderIntro, FinderPhoto, FinderThread } from '../features/messages/components/finder-view';
import { SafetyCard } from '../features/messages/components/handover';
import { MessageForm, type FieldProblem } from '../features/messages/components/message-form';
import { defaultLanguage, isSupportedLanguage, type SupportedLanguage } from '../i18n/languages';
import { allResources } from '../i18n/all-resources';
import { ApiError } from '../lib/api-transport';
import { errorText, validationText } from '../lib/error-catalogue';
import { serverRenderedItemScript } from '../features/messages/server-rendered-item';
import { VisitorLayout } from './visitor-layout';

// The finder page as the gateway renders it on each request (built by Vite's SSR build into
// dist/apps/web/server/finder-page.mjs, loaded by the gateway from WEB_DIST): the same components as the app, so a
// finder whose browser runs no script can read the item, write, and read the owner's answers, and a browser that
// runs the app sees it take over the same page.

/** What the gateway answered a posted form with, as the JSON route would have (the HTTP contract's error body). */
export interface FinderPageError {
  status: number;
  response_code?: string;
  validation?: ValidationMap;
}

export interface FinderPageInput {
  /** The tag's code as the page's path has it. */
  code: string;
  /** The visitor's language (the posted form's, else their browser's); one we do not offer is English. */
  language: string;
  /** The item as the public scan answers it; null when no item has this code. */
  item: PublicItem | null;
  /** The finder's own conversation, when their browser holds its finder cookie. */
  thread?: readonly Message[] | null;
  error?: FinderPageError | null;
  /** What the finder posted, put back in the form when it was refused. */
  values?: { content?: string; email?: string } | null;
  /** For relative times ("5 minutes ago"); now by default. */
  now?: number;
}

export interface RenderedFinderPage {
  /** The markup for `<div id="root">`. */
  root: string;
  /** The document's title, plain text. */
  title: string;
  /** For `<html lang>`. */
  language: SupportedLanguage;
}

/** The name of the hidden field that carries the page's language with a posted form. */
export const LANGUAGE_FIELD = 'language';

const instances = new Map<SupportedLanguage, I18n>();

// One i18next per language, made once: the texts are bundled, so each is ready as soon as it is made.
function i18nFor(language: SupportedLanguage): I18n {
  let instance = instances.get(language);
  if (!instance) {
    instance = i18next.createInstance();
    void instance.use(initReactI18next).init({ resources: allResources, lng: language, fallbackLng: defaultLanguage, initAsync: false, interpolation: { escapeValue: false } });
    instances.set(language, instance);
  }
  return instance;
}

/**
 * What a refused form shows, in the texts the app shows for the same mistakes: a field's own problem (the app's
 * checks before sending) or a line for the whole form (the app's text for the response code or status).
 */
export function problemsOf(t: TFunction, error: FinderPageError | null | undefined): { field: FieldProblem | null; form: string | null } {
  if (!error) return { field: null, form: null };
  const { content, email } = error.validation ?? {};
  if (content) return { field: { field: 'content', text: content === 'required' ? t('validation.required') : validationText(t, content) }, form: null };
  if (email) return { field: { field: 'email', text: t('validation.emailInvalid') }, form: null };
  return { field: null, form: errorText(t, new ApiError('http', '', error.status, error.response_code, error.validation)) };
}

function FinderPage({ code, language, item, thread, error, values, now }: FinderPageInput & { language: SupportedLanguage }) {
  const { t } = useTranslation();
  // The item could not be looked up (a service away, too many unknown codes): the page says so, as the app would.
  if (!item && error && error.status !== 404) {
    return (
      <FinderIntro>
        <FormError>{problemsOf(t, error).form}</FormError>
      </FinderIntro>
    );
  }
  if (!item) return <ItemNotFound code={code} />;
  const messages = thread ?? [];
  const replying = messages.length > 0;
  const problems = problemsOf(t, error);
  const initial = values ? { content: values.content ?? '', email: values.email ?? '' } : null;
  // In their conversation a finder gives no address, unless one they gave was refused or could not be saved: the page
  // asks for it again, filled in, and the form may then carry it alone.
  const askEmail = !replying || Boolean(values?.email) || problems.field?.field === 'email';
  return (
    <>
      <FinderIntro item={item} photo={<FinderPhoto item={item} />} withIntro={!replying}>
        {replying && <FinderThread messages={messages} now={now} />}
        <MessageForm
          withEmail={askEmail}
          action={`/found/${encodeURIComponent(code)}`}
          hiddenFields={{ [LANGUAGE_FIELD]: language }}
          initial={initial}
          initialProblem={problems.field}
          error={problems.form}
          submitLabel={replying ? t('found.sendReply') : t('found.sendFirst')}
          onSend={async () => null}
        />
        {/* The safety card works without script (a disclosure); the app shows it before the first message too. */}
        {!replying && <SafetyCard />}
        {/* The app's folded "already wrote?" request, in place so nothing below moves when the app takes over. */}
        {!replying && (
          <details className="resume-link">
            <summary>{t('resumeLink.summary')}</summary>
          </details>
        )}
      </FinderIntro>
      <p className="owner-login">
        <a href={`/login?c=${encodeURIComponent(code)}`}>{t('ownerLogin.link')}</a>
      </p>
    </>
  );
}

/** The finder page for one request, in the visitor's language. */
export function renderFinderPage(input: FinderPageInput): RenderedFinderPage {
  const language = isSupportedLanguage(input.language) ? input.language : defaultLanguage;
  const i18n = i18nFor(language);
  const t = i18n.getFixedT(language);
  const root = renderToString(
    <I18nextProvider i18n={i18n}>
      {/* The not-found page's links are the router's; nothing here navigates. */}
      <MemoryRouter initialEntries={[`/found/${encodeURIComponent(input.code)}`]}>
        <VisitorLayout language={language}>
          <FinderPage {...input} language={language} />
        </VisitorLayout>
      </MemoryRouter>
    </I18nextProvider>,
  );
  const heading = input.item || (input.error && input.error.status !== 404) ? t('found.finderTitle') : t('itemForm.notFoundTitle');
  // The item the page shows, for the app that takes the page over to start from (features/messages/server-rendered-item.ts).
  const item = input.item?.activated ? serverRenderedItemScript(input.item) : '';
  return { root: `${root}${item}`, title: `${heading} · ${t('common.productName')}`, language };
}
