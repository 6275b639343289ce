import { zodResolver } from '@hookform/resolvers/zod';
import { useMemo } from 'react';
import { useForm } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { z } from 'zod';

import { FormError } from '../../../components/form/form-error';
import { FormField } from '../../../components/form/form-field';
import { PageTitle } from '../../../components/page-title';
import { useForgotPassword } from '../../../features/auth/api';
import { MailWait, mailWaitOf, useMailWait } from '../../../features/auth/mail-wait';
import { errorText } from '../../../lib/error-catalogue';
import { emailField } from '../../../lib/form-schemas';

/** Asks for a link to set a new password (ARCHITECTURE §12: a link, never a password). */
export function ForgotPasswordPage() {
  const { t } = useTranslation();
  const forgot = useForgotPassword();
  // Past the address's budget of reset links: the button waits for the gateway's Retry-After, counting down.
  const secondsLeft = useMailWait(forgot.error);
  const schema = useMemo(() => z.object({ email: emailField(t) }), [t]);
  const form = useForm({ resolver: zodResolver(schema), defaultValues: { email: '' } });

  return (
    <section className="page page--narrow">
      <PageTitle title={t('forgotPassword.title')} />
      <h1>{t('forgotPassword.title')}</h1>
      {forgot.isSuccess ? (
        // The same answer whether or not the address has an account (spec §8).
        <p className="notice notice--success" role="status">
          {t('forgotPassword.sent')}
        </p>
      ) : (
        <>
          <p>{t('forgotPassword.text')}</p>
          <form noValidate onSubmit={form.handleSubmit(({ email }) => forgot.mutate(email))}>
            <FormField label={t('common.email')} type="email" autoComplete="email" form={form} name="email" />
            <FormError>{forgot.error && mailWaitOf(forgot.error) === null && errorText(t, forgot.error)}</FormError>
            <MailWait secondsLeft={secondsLeft} />
            <button type="submit" disabled={forgot.isPending || secondsLeft > 0}>
              {t('forgotPassword.submit')}
            </button>
          </form>
        </>
      )}
    </section>
  );
}

export { ForgotPasswordPage as Component };
