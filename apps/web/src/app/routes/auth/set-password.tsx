import { zodResolver } from '@hookform/resolvers/zod';
import { useMemo } from 'react';
import { useForm } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { Link, useMatch, useNavigate, useParams } from 'react-router';

import { FormError, FormField } from '../../../components/form/form-field';
import { PageTitle } from '../../../components/page-title';
import { useSetPassword } from '../../../features/auth/api';
import { useSession } from '../../../features/auth/session';
import { errorText, validationErrors } from '../../../lib/error-catalogue';
import { useFlash } from '../../../lib/flash';
import { newPasswordSchema, type NewPasswordValues } from '../../../lib/form-schemas';

/** `/reset-password/{token}` (from the forgot-password e-mail) and `/set-password/{token}` (from the welcome e-mail). */
export function SetPasswordPage() {
  const { t } = useTranslation();
  const { token = '' } = useParams();
  const isReset = useMatch('/reset-password/:token') !== null;
  const { user } = useSession();
  const setPassword = useSetPassword();
  const flash = useFlash();
  const navigate = useNavigate();
  const schema = useMemo(() => newPasswordSchema(t), [t]);
  const form = useForm<NewPasswordValues>({ resolver: zodResolver(schema), defaultValues: { password: '', repeat: '' } });
  const title = isReset ? t('setPassword.titleReset') : t('setPassword.titleSet');

  const submit = ({ password }: NewPasswordValues) =>
    setPassword.mutate(
      { token, password },
      {
        onSuccess: () => {
          flash.show('success', t('setPassword.saved'));
          void navigate('/items');
        },
        onError: (error) => {
          const { fields } = validationErrors(t, error, ['password']);
          if (fields.password) form.setError('password', { message: fields.password });
        },
      },
    );

  return (
    <section className="page page--narrow">
      <PageTitle title={title} />
      <h1>{title}</h1>
      {user && (
        <p className="notice" role="note">
          {t('setPassword.loggedInNote')} <Link to="/account">{t('nav.account')}</Link>
        </p>
      )}
      <form noValidate onSubmit={form.handleSubmit(submit)}>
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
        <FormError>{setPassword.error && errorText(t, setPassword.error)}</FormError>
        <button type="submit" disabled={setPassword.isPending}>
          {t('setPassword.submit')}
        </button>
      </form>
    </section>
  );
}

export { SetPasswordPage as Component };
