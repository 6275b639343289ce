import { zodResolver } from '@hookform/resolvers/zod';
import { useEffect, useMemo, useRef } from 'react';
import { useForm } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { Link, Navigate, useSearchParams } from 'react-router';
import { z } from 'zod';

import { FormError } from '../../../components/form/form-error';
import { FormField } from '../../../components/form/form-field';
import { PageTitle } from '../../../components/page-title';
import { useLoginWithCode } from '../../../features/auth/api';
import { afterLoginPath, carriedQuery, forgetLoginTarget, withLoginTarget } from '../../../features/auth/redirects';
import { useSession } from '../../../lib/session';
import { errorText } from '../../../lib/error-catalogue';
import { requiredText } from '../../../lib/form-schemas';

/** Log in with the code from the e-mail; the e-mail's link carries it as `?code=` and logs in at once. */
export function LoginCodePage() {
  const { t } = useTranslation();
  const [urlQuery] = useSearchParams();
  // The code e-mail's link has no c/ec of its own: the ones kept when the code was asked for, in this browser.
  const query = useMemo(() => withLoginTarget(urlQuery), [urlQuery]);
  const { user } = useSession();
  const login = useLoginWithCode();
  const linkCode = query.get('code');

  const schema = useMemo(() => z.object({ code: requiredText(t) }), [t]);
  const form = useForm({ resolver: zodResolver(schema), defaultValues: { code: linkCode ?? '' } });

  // Once, even under StrictMode's double effects: a code works only once.
  const triedLinkCode = useRef(false);
  useEffect(() => {
    if (linkCode && !user && !triedLinkCode.current) {
      triedLinkCode.current = true;
      login.mutate(linkCode.trim());
    }
  }, [linkCode, user, login]);

  useEffect(() => {
    if (user) forgetLoginTarget();
  }, [user]);

  if (user) return <Navigate to={afterLoginPath(query)} replace />;

  return (
    <section className="page page--narrow">
      <PageTitle title={t('loginCode.title')} />
      <h1>{t('loginCode.title')}</h1>
      <p>{t('loginCode.sent')}</p>
      <form noValidate onSubmit={form.handleSubmit(({ code }) => login.mutate(code))}>
        <FormField label={t('loginCode.code')} autoComplete="one-time-code" autoCapitalize="characters" spellCheck={false} form={form} name="code" />
        <FormError>{login.error && errorText(t, login.error, { 401: 'errors.invalidCredentials', 422: 'errors.loginCodeExpired' })}</FormError>
        <button type="submit" disabled={login.isPending}>
          {t('loginCode.submit')}
        </button>
      </form>
      <ul className="links">
        <li>
          <Link to={`/login${carriedQuery(query, query.get('email') ?? undefined)}`}>{t('loginCode.withPassword')}</Link>
        </li>
      </ul>
    </section>
  );
}

export { LoginCodePage as Component };
