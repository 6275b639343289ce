import { useId, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';

import { FormError } from '../../../components/form/form-error';
import { PageTitle } from '../../../components/page-title';
import { NewPasswordFields, useNewPasswordForm } from '../../../features/auth/components/new-password-fields';
import { RequireLogin } from '../../../components/require-login';
import { useDownloadMyData, useLogout, useUpdatePassword } from '../../../features/auth/api';
import { loginReturningTo } from '../../../features/auth/redirects';
import { PasskeysSection } from '../../../features/passkeys';
import { DeleteAccountModal } from '../../../features/auth/components/delete-account-modal';
import { useSession } from '../../../lib/session';
import { errorText } from '../../../lib/error-catalogue';
import { useFlash } from '../../../lib/flash';
import type { NewPasswordValues } from '../../../lib/form-schemas';

/**
 * The account: the e-mail (read-only), a new password, passkeys, a download of everything kept about the user, and
 * erasing the account for good.
 */
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
  const { form, showServerError } = useNewPasswordForm();
  const logout = useLogout();
  const navigate = useNavigate();
  // Adding a passkey needs a recent login: log out, and come back here after logging in again. (Awaited rather than
  // an onSettled of the call: the logout unmounts this form, and a gone component's call callbacks never run.)
  const logInAgain = async () => {
    await logout.mutateAsync().catch(() => undefined);
    await navigate(loginReturningTo('/account'));
  };

  const submit = ({ password }: NewPasswordValues) =>
    update.mutate(password, {
      onSuccess: () => {
        form.reset();
        flash.show('success', 'account.updated');
      },
      onError: showServerError,
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
        <NewPasswordFields form={form} />
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
      <PasskeysSection onLogInAgain={() => void logInAgain()} />
      <DownloadMyData />
      <DeleteMyAccount email={user?.email ?? ''} />
    </section>
  );
}

function DownloadMyData() {
  const { t } = useTranslation();
  const download = useDownloadMyData();
  const headingId = useId();
  return (
    <section className="account-export" aria-labelledby={headingId}>
      <h2 id={headingId}>{t('account.exportTitle')}</h2>
      <p>{t('account.exportText')}</p>
      <FormError>{download.isError && t('account.exportFailed')}</FormError>
      <button type="button" className="button--secondary" onClick={() => download.mutate()} disabled={download.isPending}>
        {download.isPending ? t('account.exportPending') : t('account.exportButton')}
      </button>
    </section>
  );
}

function DeleteMyAccount({ email }: { email: string }) {
  const { t } = useTranslation();
  const [confirming, setConfirming] = useState(false);
  const flash = useFlash();
  const navigate = useNavigate();
  const headingId = useId();
  const deleted = async () => {
    flash.show('success', 'account.deleted');
    await navigate('/');
  };
  return (
    <section className="account-delete" aria-labelledby={headingId}>
      <h2 id={headingId}>{t('account.deleteTitle')}</h2>
      <p>{t('account.deleteText')}</p>
      <button type="button" className="button--danger" onClick={() => setConfirming(true)}>
        {t('account.deleteButton')}
      </button>
      {confirming && <DeleteAccountModal email={email} onDeleted={deleted} onClose={() => setConfirming(false)} />}
    </section>
  );
}

export { AccountPage as Component };
