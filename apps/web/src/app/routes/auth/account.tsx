import { zodResolver } from '@hookform/resolvers/zod';
import { useId, useMemo } from 'react';
import { useForm } from 'react-hook-form';
import { useTranslation } from 'react-i18next';

import { FormError, FormField } from '../../../components/form/form-field';
import { PageTitle } from '../../../components/page-title';
import { RequireLogin } from '../../../components/require-login';
import { useUpdatePassword } from '../../../features/auth/api';
import { useSession } from '../../../features/auth/session';
import { errorText, validationErrors } from '../../../lib/error-catalogue';
import { useFlash } from '../../../lib/flash';
import { newPasswordSchema, type NewPasswordValues } from '../../../lib/form-schemas';

/** The account: the e-mail (read-only) and a new password. */
export function AccountPage() {
  return (
    <RequireLogin>
      <AccountForm />
    </RequireLogin>
  );
}

function AccountForm() {
  const { t } = useTranslation();
  const { user } = useSession();
  const update = useUpdatePassword();
  const flash = useFlash();
  const emailId = useId();
  const schema = useMemo(() => newPasswordSchema(t), [t]);
  const form = useForm<NewPasswordValues>({ resolver: zodResolver(schema), defaultValues: { password: '', repeat: '' } });

  const submit = ({ password }: NewPasswordValues) =>
    update.mutate(password, {
      onSuccess: () => {
        form.reset();
        flash.show('success', t('account.updated'));
      },
      onError: (error) => {
        const { fields } = validationErrors(t, error, ['password']);
        if (fields.password) form.setError('password', { message: fields.password });
      },
    });

  return (
    <section className="page page--narrow">
      <PageTitle title={t('account.title')} />
      <h1>{t('account.title')}</h1>
      <form noValidate onSubmit={form.handleSubmit(submit)}>
        <div className="field">
          <label htmlFor={emailId}>{t('common.email')}</label>
          <input id={emailId} type="email" value={user?.email ?? ''} readOnly />
        </div>
        <FormField
          label={t('common.newPassword')}
          type="password"
          autoComplete="new-password"
          registration={form.register('password')}
          error={form.formState.errors.password}
        />
        <FormField
          label={t('common.repeatPassword')}
          type="password"
          autoComplete="new-password"
          registration={form.register('repeat')}
          error={form.formState.errors.repeat}
        />
        <FormError>{update.error && errorText(t, update.error)}</FormError>
        {update.isSuccess && (
          <p className="notice notice--success" role="status">
            {t('account.updated')}
          </p>
        )}
        <button type="submit" disabled={update.isPending}>
          {t('account.submit')}
        </button>
      </form>
    </section>
  );
}

export { AccountPage as Component };
