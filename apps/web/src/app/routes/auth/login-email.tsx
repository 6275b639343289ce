import { zodResolver } from '@hookform/resolvers/zod';
import { useMemo } from 'react';
import { useForm } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { Link, Navigate, useNavigate, useSearchParams } from 'react-router';
import { z } from 'zod';

import { FormError, FormField } from '../../../components/form/form-field';
import { PageTitle } from '../../../components/page-title';
import { useRequestLoginCode } from '../../../features/auth/api';
import { afterLoginPath, carriedQuery } from '../../../features/auth/redirects';
import { useSession } from '../../../features/auth/session';
import { useLanguageParam } from '../../../features/auth/use-language-param';
import { errorText } from '../../../lib/error-catalogue';
import { emailField } from '../../../lib/form-schemas';

/** Log in with the e-mail address only: sends a login code, then asks for it. */
export function LoginEmailPage() {
  const { t } = useTranslation();
  const [query] = useSearchParams();
  const navigate = useNavigate();
  const { user } = useSession();
  const requestCode = useRequestLoginCode();
  useLanguageParam(query.get('lang'));

  const schema = useMemo(() => z.object({ email: emailField(t) }), [t]);
  const form = useForm({ resolver: zodResolver(schema), defaultValues: { email: query.get('email') ?? '' } });

  if (user) return <Navigate to={afterLoginPath(query)} replace />;

  return (
    <section className="page page--narrow">
      <PageTitle title={t('loginEmail.title')} />
      <h1>{t('loginEmail.title')}</h1>
      <p>{t('loginEmail.text')}</p>
      <form
        noValidate
        onSubmit={form.handleSubmit(({ email }) =>
          requestCode.mutate(email, { onSuccess: () => void navigate(`/login/code${carriedQuery(query, email)}`) }),
        )}
      >
        <FormField label={t('common.email')} type="email" autoComplete="email" registration={form.register('email')} error={form.formState.errors.email} />
        <FormError>{requestCode.error && errorText(t, requestCode.error, { 401: 'errors.invalidCredentials' })}</FormError>
        <button type="submit" disabled={requestCode.isPending}>
          {t('loginEmail.submit')}
        </button>
      </form>
      <ul className="links">
        <li>
          <Link to={`/login${carriedQuery(query, form.watch('email').trim())}`}>{t('loginEmail.withPassword')}</Link>
        </li>
      </ul>
    </section>
  );
}

export { LoginEmailPage as Component };
