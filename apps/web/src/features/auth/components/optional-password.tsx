import { zodResolver } from '@hookform/resolvers/zod';
import { useMemo } from 'react';
import { useForm } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { z } from 'zod';
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from '@homing/contracts';

import { FormField } from '../../../components/form/form-field';
import { errorText } from '../../../lib/error-catalogue';
import { useSetPassword } from '../api';

/**
 * The password of an account just made for an address (activation, an accepted invitation): optional; an empty
 * password skips the call (spec §4).
 */
export function OptionalPassword({ passwordToken, onDone }: { passwordToken: string; onDone(): void }) {
  const { t } = useTranslation();
  const setPassword = useSetPassword();
  const schema = useMemo(
    () =>
      z.object({
        password: z
          .string()
          .refine((password) => !password || password.length >= PASSWORD_MIN_LENGTH, t('validation.passwordTooShort', { minLength: PASSWORD_MIN_LENGTH }))
          .refine((password) => password.length <= PASSWORD_MAX_LENGTH, t('validation.passwordTooLong', { maxLength: PASSWORD_MAX_LENGTH })),
      }),
    [t],
  );
  const form = useForm<{ password: string }>({ resolver: zodResolver(schema), defaultValues: { password: '' }, reValidateMode: 'onSubmit' });
  const submit = ({ password }: { password: string }) => {
    if (!password) return onDone();
    // The server's refusal is shown where a wrong password is, under the field.
    setPassword.mutate({ token: passwordToken, password }, { onSuccess: onDone, onError: (cause) => form.setError('password', { message: errorText(t, cause) }) });
  };
  return (
    <form noValidate onSubmit={form.handleSubmit(submit)}>
      <p>{t('activate.setPasswordText')}</p>
      <FormField label={t('activate.passwordOptional')} type="password" autoComplete="new-password" form={form} name="password" />
      <button type="submit" disabled={setPassword.isPending}>
        {t('activate.finish')}
      </button>
    </form>
  );
}
