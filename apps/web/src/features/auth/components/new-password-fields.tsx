import { zodResolver } from '@hookform/resolvers/zod';
import { useMemo } from 'react';
import { useForm, type UseFormReturn } from 'react-hook-form';
import { useTranslation } from 'react-i18next';

import { FormField } from '../../../components/form/form-field';
import { validationErrors } from '../../../lib/error-catalogue';
import { newPasswordSchema, type NewPasswordValues } from '../../../lib/form-schemas';

/** A form for a new password and its repetition (account, set and reset password). */
export function useNewPasswordForm() {
  const { t } = useTranslation();
  const schema = useMemo(() => newPasswordSchema(t), [t]);
  const form = useForm<NewPasswordValues>({ resolver: zodResolver(schema), defaultValues: { password: '', repeat: '' } });
  // What the server says of the password (spec §8) goes under its field.
  const showServerError = (error: unknown) => {
    const { fields } = validationErrors(t, error, ['password']);
    if (fields.password) form.setError('password', { message: fields.password });
  };
  return { form, showServerError };
}

export function NewPasswordFields({ form }: { form: UseFormReturn<NewPasswordValues> }) {
  const { t } = useTranslation();
  return (
    <>
      <FormField label={t('common.newPassword')} type="password" autoComplete="new-password" form={form} name="password" />
      <FormField label={t('common.repeatPassword')} type="password" autoComplete="new-password" form={form} name="repeat" />
    </>
  );
}
