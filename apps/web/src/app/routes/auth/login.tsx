import { zodResolver } from '@hookform/resolvers/zod';
import { useMemo } from 'react';
import { useForm } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { Link, Navigate, useParams, useSearchParams } from 'react-router';
import { z } from 'zod';

import { FormError } from '../../../components/form/form-error';
import { FormField } from '../../../components/form/form-field';
import { PageTitle } from '../../../components/page-title';
import { useLoginWithPassword } from '../../../features/auth/api';
import { PasskeyLogin } from '../../../features/passkeys';
import { afterLoginPath, carriedQuery } from '../../../features/auth/redirects';
import { useSession } from '../../../lib/session';
import { useLanguageParam } from '../../../features/auth/use-language-param';
import { isSupportedLanguage } from '../../../i18n/languages';
import { errorText } from '../../../lib/error-catalogue';
import { currentPasswordField, emailField } from '../../../lib/form-schemas';
import { NotFoundPage } from '../not-found';

/** Log in with e-mail and password: `/login` and `/login/{lang}`. */
export function LoginPage() {
  const { lang } = useParams();
  if (lang !== undefined && !isSupportedLanguage(lang)) return <NotFoundPage />;
  return <LoginForm language={lang} />;
}

function LoginForm({ language }: { language?: string }) {
  const { t } = useTranslation();
  const [query] = useSearchParams();
  const { user } = useSession();
  const login = useLoginWithPassword();
  useLanguageParam(language);

  const schema = useMemo(() => z.object({ email: emailField(t), password: currentPasswordField(t) }), [t]);
  const form = useForm({ resolver: zodResolver(schema), defaultValues: { email: query.get('email') ?? '', password: '' } });
  const typedEmail = form.watch('email');

  if (user) return <Navigate to={afterLoginPath(query)} replace />;

  return (
    <section className="page page--narrow">
      <PageTitle title={t('login.title')} />
      <h1>{t('login.title')}</h1>
      <form noValidate onSubmit={form.handleSubmit((values) => login.mutate(values))}>
        {/* "webauthn": the browser may offer the user's passkeys here (PasskeyLogin's suggestions). */}
        <FormField label={t('common.email')} type="email" autoComplete="username webauthn" form={form} name="email" />
        <FormField label={t('common.password')} type="password" autoComplete="current-password" form={form} name="password" />
        <FormError>{login.error && errorText(t, login.error, { 401: 'errors.invalidCredentials' })}</FormError>
        <button type="submit" disabled={login.isPending}>
          {t('login.submit')}
        </button>
      </form>
      <PasskeyLogin />
      <ul className="links">
        <li>
          <Link to="/forgot-password">{t('login.forgotPassword')}</Link>
        </li>
        <li>
          <Link to={`/login/email${carriedQuery(query, typedEmail.trim())}`}>{t('login.withEmail')}</Link>
        </li>
      </ul>
    </section>
  );
}

export { LoginPage as Component };
