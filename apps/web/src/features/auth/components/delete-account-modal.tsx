import { zodResolver } from '@hookform/resolvers/zod';
import { useEffect, useMemo, useState } from 'react';
import { useForm } from 'react-hook-form';
import { useTranslation } from 'react-i18next';
import { z } from 'zod';

import { FormError } from '../../../components/form/form-error';
import { FormField } from '../../../components/form/form-field';
import { Modal } from '../../../components/modal';
import { errorText } from '../../../lib/error-catalogue';
import { currentPasswordField, requiredText } from '../../../lib/form-schemas';
import { useDeleteAccount, useRequestLoginCode, type AccountDeletionProof } from '../api';
import { MailWait, mailWaitOf, useMailWait } from '../mail-wait';

interface DeleteAccountModalProps {
  /** The logged-in user's address: where a code goes for an owner without a password. */
  email: string;
  /** The account is gone: move on (the session ends right after). */
  onDeleted(): void | Promise<void>;
  onClose(): void;
}

/**
 * The last step before the account is erased: the owner proves it is them with their password or, without one, a
 * login code e-mailed to them. A refusal shows here and leaves the dialog open.
 */
export function DeleteAccountModal({ email, onDeleted, onClose }: DeleteAccountModalProps) {
  const { t } = useTranslation();
  const [proof, setProof] = useState<'password' | 'code'>('password');
  const deletion = useDeleteAccount(onDeleted);
  const requestCode = useRequestLoginCode();
  // Past the address's budget of login codes: the link waits for the gateway's Retry-After, counting down.
  const secondsLeft = useMailWait(requestCode.error);

  // A password goes exactly as typed: spaces at its ends are part of it.
  const schema = useMemo(() => z.object({ secret: proof === 'password' ? currentPasswordField(t) : requiredText(t) }), [proof, t]);
  const form = useForm({ resolver: zodResolver(schema), defaultValues: { secret: '' } });

  // The field is a new one after a switch: focus follows it, or it would be lost with the one that went.
  const [switched, setSwitched] = useState(false);
  const { setFocus } = form;
  useEffect(() => {
    if (switched) setFocus('secret');
  }, [proof, switched, setFocus]);

  const switchTo = (next: 'password' | 'code') => {
    form.reset({ secret: '' });
    deletion.reset();
    setProof(next);
    setSwitched(true);
  };
  const sendCode = () => requestCode.mutate(email, { onSuccess: () => switchTo('code') });

  const submit = ({ secret }: { secret: string }) => {
    const body: AccountDeletionProof = proof === 'password' ? { password: secret } : { code: secret.trim() };
    deletion.mutate(body);
  };

  const codeError = requestCode.error && mailWaitOf(requestCode.error) === null ? errorText(t, requestCode.error) : null;
  const busy = deletion.isPending || deletion.isSuccess;

  return (
    <Modal title={t('account.deleteDialogTitle')} onClose={onClose} role="alertdialog">
      <form noValidate onSubmit={form.handleSubmit(submit)}>
        {proof === 'password' ? (
          <>
            <p>{t('account.deleteDialogText')}</p>
            <FormField key="password" label={t('common.password')} type="password" autoComplete="current-password" form={form} name="secret" />
          </>
        ) : (
          <>
            <p role="status">{t('account.deleteCodeSent', { email })}</p>
            <FormField key="code" label={t('account.deleteCode')} autoComplete="one-time-code" autoCapitalize="characters" spellCheck={false} form={form} name="secret" />
          </>
        )}
        <p className="delete-account__proof">
          <button type="button" className="link-button" onClick={sendCode} disabled={requestCode.isPending || secondsLeft > 0}>
            {proof === 'password' ? t('account.deleteNoPassword') : t('account.deleteNewCode')}
          </button>
          {proof === 'code' && (
            <button type="button" className="link-button" onClick={() => switchTo('password')}>
              {t('account.deleteWithPassword')}
            </button>
          )}
        </p>
        <MailWait secondsLeft={secondsLeft} />
        <FormError>{(deletion.error && errorText(t, deletion.error)) || codeError}</FormError>
        <div className="actions">
          <button type="submit" className="button--danger" disabled={busy}>
            {t('account.deleteConfirm')}
          </button>
          <button type="button" className="button--secondary" onClick={onClose} disabled={busy}>
            {t('common.cancel')}
          </button>
        </div>
      </form>
    </Modal>
  );
}
