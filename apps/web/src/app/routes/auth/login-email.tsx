import { zodResolver } from '@hookform/resolvers/zod';
import { useMemo } from 'react';
import { useForm } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { Link, Navigate, useNavigate, useSearchParams } from 'react-router';
import { z } from 'zod';

import { FormError } from '../../../components/form/form-error';
import { FormField } from '../../../components/form/form-field';
import { PageTitle } from '../../../components/page-title';
import { useRequestLoginCode } from '../../../features/auth/api';
import { MailWait, mailWaitOf, useMailWait } from '../../../features/auth/mail-wait';
import { afterLoginPath, carriedQuery, rememberLoginTarget } from '../../../features/auth/redirects';
import { useSession } from '../../../lib/session';
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
  // Past the address's budget of login codes: the button waits for the gateway's Retry-After, counting down.
  const secondsLeft = useMailWait(requestCode.error);
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
          requestCode.mutate(email, {
            onSuccess: () => {
              // The code e-mail's link opens the code screen without this query: it finds c/ec kept here.
              rememberLoginTarget(query);
              void navigate(`/login/code${carriedQuery(query, email)}`);
            },
          }),
        )}
      >
        <FormField label={t('common.email')} type="email" autoComplete="email" form={form} name="email" />
        <FormError>{requestCode.error && mailWaitOf(requestCode.error) === null && errorText(t, requestCode.error, { 401: 'errors.invalidCredentials' })}</FormError>
        <MailWait secondsLeft={secondsLeft} />
        <button type="submit" disabled={requestCode.isPending || secondsLeft > 0}>
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
